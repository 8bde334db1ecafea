package virtctl

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

const vmiURL = "/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vm"

// evacuationAPI serves the VMI "vm" on node (404 when node is "-") and
// answers either evacuate/cancel with cancel; it records every request.
type evacuationAPI struct {
	node   string
	cancel func(w http.ResponseWriter)
	got    []seen
}

func (a *evacuationAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.got = append(a.got, seen{r.Method, r.URL.Path, r.URL.RawQuery, body})
	switch {
	case r.Method == http.MethodGet && r.URL.Path == vmiURL && a.node != "-":
		apiObject(w, http.StatusOK, kubevirtv1.VirtualMachineInstance{
			TypeMeta:   metav1.TypeMeta{Kind: "VirtualMachineInstance", APIVersion: "kubevirt.io/v1"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"},
			Status:     kubevirtv1.VirtualMachineInstanceStatus{NodeName: a.node}})
	case r.Method == http.MethodGet && r.URL.Path == vmiURL:
		apiObject(w, http.StatusNotFound, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound, Message: `virtualmachineinstances.kubevirt.io "vm" not found`})
	case r.Method == http.MethodPut && (r.URL.Path == "/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm/evacuate/cancel" ||
		r.URL.Path == "/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vm/evacuate/cancel"):
		a.cancel(w)
	default:
		apiStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound)
	}
}

func (a *evacuationAPI) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	err := Main(context.Background(), append([]string{"--kubeconfig", writeKubeconfig(t, srv.URL)}, args...), &out)
	return out.String(), err
}

func ok(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) }

func TestEvacuateCancelNamesTheVMIsNodeAndSaysSo(t *testing.T) {
	for kind, c := range map[string]struct{ path, out string }{
		"vm":                      {"/virtualmachines/vm/evacuate/cancel", "VM ns/vm was canceled evacuation\n"},
		"VirtualMachines":         {"/virtualmachines/vm/evacuate/cancel", "VM ns/vm was canceled evacuation\n"},
		"vmi":                     {"/virtualmachineinstances/vm/evacuate/cancel", "VMI ns/vm was canceled evacuation\n"},
		"virtualmachineinstances": {"/virtualmachineinstances/vm/evacuate/cancel", "VMI ns/vm was canceled evacuation\n"},
	} {
		api := &evacuationAPI{node: "node-1", cancel: ok}
		out, err := api.run(t, "evacuate-cancel", kind, "vm")
		require.NoError(t, err, kind)
		require.Equal(t, c.out, out, kind)
		require.Len(t, api.got, 2, kind)
		require.Equal(t, vmiURL, api.got[0].path, "the VMI is read first")
		require.Equal(t, http.MethodPut, api.got[1].method, kind)
		require.Equal(t, "/apis/subresources.kubevirt.io/v1/namespaces/ns"+c.path, api.got[1].path, kind)
		require.JSONEq(t, `{"evacuationNodeName":"node-1"}`, string(api.got[1].body), kind)
	}
}

func TestEvacuateCancelDryRun(t *testing.T) {
	api := &evacuationAPI{node: "node-1", cancel: ok}
	out, err := api.run(t, "evacuate-cancel", "vmi", "vm", "--dry-run")
	require.NoError(t, err)
	require.Equal(t, "Dry Run execution\nVMI ns/vm was canceled evacuation\n", out)
	require.JSONEq(t, `{"evacuationNodeName":"node-1","dryRun":["All"]}`, string(api.got[1].body))
}

func TestEvacuateCancelArgumentsAsUpstreams(t *testing.T) {
	api := &evacuationAPI{node: "node-1", cancel: ok}
	_, err := api.run(t, "evacuate-cancel")
	require.EqualError(t, err, "accepts 2 arg(s), received 0")
	_, err = api.run(t, "evacuate-cancel", "node", "node-1")
	require.EqualError(t, err, `unsupported resource type "node"`)
	_, err = api.run(t, "evacuate-cancel", "vmi", "vm", "--migrate-cancel")
	require.Error(t, err, "upstream's help mentions --migrate-cancel, but no such flag exists")
	require.Empty(t, api.got, "nothing was asked of the cluster")
}

func TestEvacuateCancelErrorsInUpstreamsWords(t *testing.T) {
	api := &evacuationAPI{node: "-"}
	_, err := api.run(t, "evacuate-cancel", "vm", "vm")
	require.EqualError(t, err, `error retrieving VMI for evacuation cancel for VM ns/vm: virtualmachineinstances.kubevirt.io "vm" not found`)

	api = &evacuationAPI{node: ""}
	_, err = api.run(t, "evacuate-cancel", "vmi", "vm")
	require.EqualError(t, err, "VMI ns/vm doesn't report Node name")
	require.Len(t, api.got, 1, "nothing to cancel without a node")

	api = &evacuationAPI{node: "node-1", cancel: func(w http.ResponseWriter) {
		apiObject(w, http.StatusBadRequest, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
			Message: `Node "node-1" has NodeDrainTaintKey "&Taint{Key:kubevirt.io/drain,Value:,Effect:NoSchedule,TimeAdded:<nil>,}"`})
	}}
	out, err := api.run(t, "evacuate-cancel", "vmi", "vm")
	require.EqualError(t, err, `error canceling evacuation for VMI ns/vm: Node "node-1" has NodeDrainTaintKey "&Taint{Key:kubevirt.io/drain,Value:,Effect:NoSchedule,TimeAdded:<nil>,}"`)
	require.Empty(t, out)
}

func TestUsageListsEvacuateCancel(t *testing.T) {
	require.Contains(t, usage, "evacuate-cancel (vm NAME | vmi NAME) [--dry-run]")
}
