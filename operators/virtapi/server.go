package virtapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GroupVersion of the aggregated API virt-api serves.
const (
	SubresourceGroup   = "subresources.kubevirt.io"
	SubresourceVersion = "v1"
	prefix             = "/apis/" + SubresourceGroup + "/" + SubresourceVersion
)

// NodeCommander reaches the node agent running a VMI.
type NodeCommander interface {
	// VMICommand sends pause or unpause to the VMI's launcher.
	VMICommand(ctx context.Context, namespace, name, verb string) error
}

// Server serves subresources.kubevirt.io/v1 behind the API server's
// aggregation layer, which has already authenticated and authorized the
// caller; Authenticate only checks the request came through it.
type Server struct {
	Actions *Actions
	Nodes   NodeCommander
	// Authenticate rejects requests that did not come from the aggregator.
	Authenticate func(*http.Request) error
	Version      string
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix, s.discovery)
	mux.HandleFunc("GET "+prefix+"/version", s.version)
	mux.HandleFunc("GET "+prefix+"/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	vm := prefix + "/namespaces/{ns}/virtualmachines/{name}/"
	mux.HandleFunc("PUT "+vm+"start", s.vmAction(func(r *http.Request, ns, name string) error { return s.Actions.Start(r.Context(), ns, name) }))
	mux.HandleFunc("PUT "+vm+"restart", s.vmAction(func(r *http.Request, ns, name string) error { return s.Actions.Restart(r.Context(), ns, name) }))
	mux.HandleFunc("PUT "+vm+"stop", s.vmAction(func(r *http.Request, ns, name string) error {
		opts, err := decodeStop(r)
		if err != nil {
			return &ActionError{Code: http.StatusBadRequest, Message: "decoding stop options: " + err.Error()}
		}
		return s.Actions.Stop(r.Context(), ns, name, opts.GracePeriod)
	}))
	vmi := prefix + "/namespaces/{ns}/virtualmachineinstances/{name}/"
	mux.HandleFunc("GET "+vmi+"console", func(w http.ResponseWriter, r *http.Request) { s.stream(w, r, ConsoleStream) })
	mux.HandleFunc("GET "+vmi+"vnc", func(w http.ResponseWriter, r *http.Request) { s.stream(w, r, VNCStream) })
	mux.HandleFunc("GET "+vmi+"guestosinfo", s.guestOSInfo)
	for _, verb := range []string{"pause", "unpause"} {
		mux.HandleFunc("PUT "+vmi+verb, s.vmAction(func(r *http.Request, ns, name string) error {
			return s.Nodes.VMICommand(r.Context(), ns, name, verb)
		}))
	}
	return s.authenticated(mux)
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
	}
	return metav1.StatusReasonInternalError
}

func (s *Server) discovery(w http.ResponseWriter, _ *http.Request) {
	res := func(name string, verbs ...string) metav1.APIResource {
		return metav1.APIResource{Name: name, Namespaced: true, Kind: "", Verbs: verbs}
	}
	list := metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: SubresourceGroup + "/" + SubresourceVersion,
		APIResources: []metav1.APIResource{
			res("virtualmachines/start", "update"), res("virtualmachines/stop", "update"), res("virtualmachines/restart", "update"),
			res("virtualmachineinstances/pause", "update"), res("virtualmachineinstances/unpause", "update"),
			res("virtualmachineinstances/console", "get"), res("virtualmachineinstances/vnc", "get"),
			res("virtualmachineinstances/guestosinfo", "get"),
		},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"gitVersion": s.Version, "platform": "linux/amd64"})
}
