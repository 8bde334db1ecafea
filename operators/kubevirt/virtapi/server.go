// Package virtapi is virt-api's server: the aggregated API
// subresources.kubevirt.io (server.go routes it): the VM actions (start,
// stop, restart, migrate), the cancel of a VM's or VMI's evacuation, the
// VMI commands it passes to the node agents (pause,
// freeze, soft reboot, ...), the console, VNC and screenshot streams,
// guest info, guestfs, expand-spec and objectgraph, behind the front
// proxy's authentication. virt-api's admission webhooks are
// operators/kubevirt/virtadmission, which commands/virtapiserver serves
// on the same port.
package virtapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/version"
)

// GroupVersion of the aggregated API virt-api serves.
const (
	SubresourceGroup   = "subresources.kubevirt.io"
	SubresourceVersion = "v1"
	prefix             = "/apis/" + SubresourceGroup + "/" + SubresourceVersion
	// legacyPrefix is the older version upstream still serves alike.
	legacyPrefix = "/apis/" + SubresourceGroup + "/v1alpha3"
)

// Server serves subresources.kubevirt.io/v1 behind the API server's
// aggregation layer, which has already authenticated and authorized the
// caller; Authenticate only checks the request came through it.
type Server struct {
	Actions *Actions
	Nodes   NodeCommander
	// Reader reads what expand-spec and objectgraph need: VMs, VMIs,
	// instancetypes, preferences, pods and claims.
	Reader client.Reader
	// Authenticate rejects requests that did not come from the aggregator.
	Authenticate func(*http.Request) error
	// Version is this build's, served at /version.
	Version version.Info
}

// Handler returns the HTTP handler. Every subresource upstream serves is
// routed: those not built yet answer 501 with a clear message instead of
// a 404 that would look like a wrong URL.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, gv := range []string{prefix, legacyPrefix} {
		mux.HandleFunc("GET "+gv, s.discovery)
		mux.HandleFunc("GET "+gv+"/version", s.version)
		mux.HandleFunc("GET "+gv+"/guestfs", s.guestfs)
		mux.HandleFunc("GET "+gv+"/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
		s.vmRoutes(mux, gv+"/namespaces/{ns}/virtualmachines/{name}/")
		s.vmiRoutes(mux, gv+"/namespaces/{ns}/virtualmachineinstances/{name}/")
		mux.HandleFunc("PUT "+gv+"/namespaces/{ns}/expand-vm-spec", s.expandBody)
		unsupported(mux, gv)
		gatedOff(mux, gv)
	}
	return s.authenticated(mux)
}

func (s *Server) vmRoutes(mux *http.ServeMux, vm string) {
	mux.HandleFunc("PUT "+vm+"start", s.vmAction(func(r *http.Request, ns, name string) error { return s.Actions.Start(r.Context(), ns, name) }))
	mux.HandleFunc("PUT "+vm+"restart", s.vmAction(func(r *http.Request, ns, name string) error { return s.Actions.Restart(r.Context(), ns, name) }))
	mux.HandleFunc("PUT "+vm+"stop", s.vmAction(func(r *http.Request, ns, name string) error {
		opts, err := decodeStop(r)
		if err != nil {
			return badRequest("Can not unmarshal Request body to struct, error: %v", err)
		}
		return s.Actions.Stop(r.Context(), ns, name, opts.GracePeriod)
	}))
	mux.HandleFunc("PUT "+vm+"migrate", s.vmAction(s.migrate))
	mux.HandleFunc("PUT "+vm+"evacuate/cancel", s.evacuateCancel(true))
	mux.HandleFunc("GET "+vm+"expand-spec", s.expandVM)
	mux.HandleFunc("GET "+vm+"objectgraph", s.objectGraph(false))
	mux.HandleFunc("GET "+vm+"portforward/{port}", s.portForward(true))
	mux.HandleFunc("GET "+vm+"portforward/{port}/{protocol}", s.portForward(true))
}

func (s *Server) vmiRoutes(mux *http.ServeMux, vmi string) {
	mux.HandleFunc("GET "+vmi+"console", func(w http.ResponseWriter, r *http.Request) { s.stream(w, r, ConsoleStream) })
	mux.HandleFunc("GET "+vmi+"vnc", func(w http.ResponseWriter, r *http.Request) { s.stream(w, r, VNCStream) })
	mux.HandleFunc("GET "+vmi+"vnc/screenshot", s.screenshot)
	mux.HandleFunc("GET "+vmi+"guestosinfo", s.guestGet(asOSInfo))
	mux.HandleFunc("GET "+vmi+"userlist", s.guestGet(asUserList))
	mux.HandleFunc("GET "+vmi+"filesystemlist", s.guestGet(asFileSystemList))
	mux.HandleFunc("GET "+vmi+"objectgraph", s.objectGraph(true))
	mux.HandleFunc("GET "+vmi+"portforward/{port}", s.portForward(false))
	mux.HandleFunc("GET "+vmi+"portforward/{port}/{protocol}", s.portForward(false))
	mux.HandleFunc("PUT "+vmi+"evacuate/cancel", s.evacuateCancel(false))
	for verb, check := range map[string]vmiCheck{
		"pause": checkPause, "unpause": checkUnpause, "softreboot": checkSoftReboot,
		"reset": checkReset, "freeze": checkFreeze, "unfreeze": checkUnfreeze,
	} {
		mux.HandleFunc("PUT "+vmi+verb, s.vmiCommand(verb, check))
	}
}

func (s *Server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Authenticate != nil {
			if err := s.Authenticate(r); err != nil {
				writeStatus(w, http.StatusUnauthorized, err.Error())
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) vmAction(do func(*http.Request, string, string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := do(r, r.PathValue("ns"), r.PathValue("name")); err != nil {
			writeError(w, err)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// writeError answers with the ActionError's code, else 500.
func writeError(w http.ResponseWriter, err error) {
	var ae *ActionError
	if errors.As(err, &ae) {
		writeStatus(w, ae.Code, ae.Message)
		return
	}
	writeStatus(w, http.StatusInternalServerError, err.Error())
}

// writeStatus answers with a metav1.Status, which kubectl and virtctl print.
func writeStatus(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Code: int32(code), Reason: reasonFor(code),
	})
}

func reasonFor(code int) metav1.StatusReason {
	switch code {
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusNotImplemented:
		return "NotImplemented"
	}
	return metav1.StatusReasonInternalError
}

func (s *Server) discovery(w http.ResponseWriter, r *http.Request) {
	res := func(name string, verbs ...string) metav1.APIResource {
		return metav1.APIResource{Name: name, Namespaced: true, Kind: "", Verbs: verbs}
	}
	var list []metav1.APIResource
	for _, n := range []string{"start", "stop", "restart", "migrate", "evacuate/cancel"} {
		list = append(list, res("virtualmachines/"+n, "update"))
	}
	list = append(list, res("virtualmachines/expand-spec", "get"), res("virtualmachines/objectgraph", "get"))
	for _, n := range []string{"pause", "unpause", "softreboot", "reset", "freeze", "unfreeze", "evacuate/cancel"} {
		list = append(list, res("virtualmachineinstances/"+n, "update"))
	}
	for _, n := range []string{"console", "vnc", "vnc/screenshot", "guestosinfo", "userlist", "filesystemlist", "objectgraph"} {
		list = append(list, res("virtualmachineinstances/"+n, "get"))
	}
	list = append(list, res("expand-vm-spec", "update"))
	gv := strings.TrimPrefix(strings.TrimSuffix(r.URL.Path, "/"), "/apis/")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(metav1.APIResourceList{
		TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv, APIResources: list,
	})
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.Version)
}
