package virtapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

const (
	vmiCancelPath = "namespaces/ns/virtualmachineinstances/vm/evacuate/cancel"
	vmCancelPath  = "namespaces/ns/virtualmachines/vm/evacuate/cancel"
	// cancelNode1 is what upstream's client sends to cancel an evacuation
	// from node-1.
	cancelNode1 = `{"evacuationNodeName":"node-1"}`
)

// evacuationAPI serves the subresources over objs, the VMI's status
// being its own subresource as in virtflow's CRD; it returns the client
// to read what was written.
func evacuationAPI(t *testing.T, objs ...client.Object) (*httptest.Server, client.Client) {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&kubevirtv1.VirtualMachineInstance{}).Build()
	return serve(t, &Server{Actions: &Actions{Client: c}, Reader: c}), c
}

// markedVMI runs on node-1, owned by the VM "vm", marked to leave
// evacuateFrom (unmarked when empty).
func markedVMI(evacuateFrom string) *kubevirtv1.VirtualMachineInstance {
	v := runningVMI()
	// Stored objects have a UID; the fake client's patches need one.
	v.UID = "vmi-uid"
	v.Status.NodeName = "node-1"
	v.Status.EvacuationNodeName = evacuateFrom
	v.OwnerReferences = []metav1.OwnerReference{{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine", Name: "vm", UID: "vm-uid"}}
	return v
}

// createdVM is the VM "vm" whose instance exists.
func createdVM() *kubevirtv1.VirtualMachine {
	vm := aVM()
	vm.UID = "vm-uid"
	vm.Status.Created = true
	return vm
}

func nodeNamed(name string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints}}
}

func drainTaint(key string) corev1.Taint {
	return corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule}
}

func storedVMI(t *testing.T, c client.Client) *kubevirtv1.VirtualMachineInstance {
	t.Helper()
	v := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "vm"}, v))
	return v
}

// Upstream answers before it reads the body: even one it could not
// decode.
func TestEvacuateCancelOfAnUnmarkedVMIWritesNothing(t *testing.T) {
	srv, c := evacuationAPI(t, markedVMI(""), nodeNamed("node-1"))
	before := storedVMI(t, c).ResourceVersion
	code, body := call(t, srv, http.MethodPut, vmiCancelPath, "{not json")
	require.Equal(t, http.StatusOK, code, body)
	require.Empty(t, body)
	require.Equal(t, before, storedVMI(t, c).ResourceVersion, "nothing was patched")
}

func TestEvacuateCancelRemovesTheMark(t *testing.T) {
	srv, c := evacuationAPI(t, markedVMI("node-1"), nodeNamed("node-1"))
	code, body := call(t, srv, http.MethodPut, vmiCancelPath, cancelNode1)
	require.Equal(t, http.StatusOK, code, body)
	require.Empty(t, body)
	require.Empty(t, storedVMI(t, c).Status.EvacuationNodeName)
	require.Equal(t, "node-1", storedVMI(t, c).Status.NodeName, "only the mark goes")
}

func TestEvacuateCancelDryRunKeepsTheMark(t *testing.T) {
	srv, c := evacuationAPI(t, markedVMI("node-1"), nodeNamed("node-1"))
	code, body := call(t, srv, http.MethodPut, vmiCancelPath, `{"evacuationNodeName":"node-1","dryRun":["All"]}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "node-1", storedVMI(t, c).Status.EvacuationNodeName)
}

// The patch tests the node the caller names: upstream's v1.8 virtctl,
// which names none, gets the patch's failure in a 500.
func TestEvacuateCancelOfAnotherNodesEvacuationFails(t *testing.T) {
	srv, c := evacuationAPI(t, markedVMI("node-1"), nodeNamed("node-1"))
	for _, req := range []string{`{"evacuationNodeName":"node-2"}`, `{"evacuationNodeName":""}`, ""} {
		code, body := call(t, srv, http.MethodPut, vmiCancelPath, req)
		require.Equal(t, http.StatusInternalServerError, code, req)
		require.Contains(t, statusMessage(t, body), "Internal error occurred: ", req)
		require.Equal(t, "node-1", storedVMI(t, c).Status.EvacuationNodeName, req)
	}
	code, body := call(t, srv, http.MethodPut, vmiCancelPath, "{not json")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, statusMessage(t, body), "Can not unmarshal Request body to struct, error: ")
}

func TestEvacuateCancelIsRefusedWhileTheNodeIsDrainTainted(t *testing.T) {
	const msg = `Node "node-1" has NodeDrainTaintKey "&Taint{Key:kubevirt.io/drain,Value:,Effect:NoSchedule,TimeAdded:<nil>,}"`
	moved := markedVMI("node-1")
	moved.Status.NodeName = "node-2"
	for name, vmi := range map[string]*kubevirtv1.VirtualMachineInstance{
		"marked, on the node": markedVMI("node-1"), "unmarked, on the node": markedVMI(""), "marked to leave the node": moved,
	} {
		srv, c := evacuationAPI(t, vmi, nodeNamed("node-1", drainTaint("kubevirt.io/drain")), nodeNamed("node-2"))
		code, body := call(t, srv, http.MethodPut, vmiCancelPath, cancelNode1)
		require.Equal(t, http.StatusBadRequest, code, name)
		require.Equal(t, msg, statusMessage(t, body), name)
		require.Equal(t, vmi.Status.EvacuationNodeName, storedVMI(t, c).Status.EvacuationNodeName, name)
	}
}

// The KubeVirt CR's key replaces the default one.
func TestEvacuateCancelFollowsTheConfiguredDrainTaintKey(t *testing.T) {
	key := "example.com/maintenance"
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt", Name: "kubevirt"},
		Spec: kubevirtv1.KubeVirtSpec{Configuration: kubevirtv1.KubeVirtConfiguration{
			MigrationConfiguration: &kubevirtv1.MigrationConfiguration{NodeDrainTaintKey: &key}}}}
	srv, _ := evacuationAPI(t, kv, markedVMI("node-1"), nodeNamed("node-1", drainTaint(key)))
	code, body := call(t, srv, http.MethodPut, vmiCancelPath, cancelNode1)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, statusMessage(t, body), "Key:example.com/maintenance,")

	srv, c := evacuationAPI(t, kv, markedVMI("node-1"), nodeNamed("node-1", drainTaint("kubevirt.io/drain")))
	code, body = call(t, srv, http.MethodPut, vmiCancelPath, cancelNode1)
	require.Equal(t, http.StatusOK, code, body)
	require.Empty(t, storedVMI(t, c).Status.EvacuationNodeName)
}

func TestEvacuateCancelOfAVMUnmarksItsInstance(t *testing.T) {
	srv, c := evacuationAPI(t, createdVM(), markedVMI("node-1"), nodeNamed("node-1"))
	code, body := call(t, srv, http.MethodPut, vmCancelPath, cancelNode1)
	require.Equal(t, http.StatusOK, code, body)
	require.Empty(t, storedVMI(t, c).Status.EvacuationNodeName)
}

func TestEvacuateCancelRefusalsInUpstreamsWords(t *testing.T) {
	stopped := createdVM()
	stopped.Status.Created = false
	notOurs := markedVMI("node-1")
	notOurs.OwnerReferences = nil
	for name, c := range map[string]struct {
		path string
		objs []client.Object
		code int
		msg  string
	}{
		"no VMI":           {vmiCancelPath, nil, http.StatusNotFound, `virtualmachineinstance.kubevirt.io "vm" not found`},
		"no VM":            {vmCancelPath, nil, http.StatusNotFound, `virtualmachine.kubevirt.io "vm" not found`},
		"VM not started":   {vmCancelPath, []client.Object{stopped}, http.StatusConflict, `Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm": VMI is not started`},
		"VM's VMI gone":    {vmCancelPath, []client.Object{createdVM()}, http.StatusNotFound, `virtualmachineinstance.kubevirt.io "vm" not found`},
		"VMI not the VM's": {vmCancelPath, []client.Object{createdVM(), notOurs}, http.StatusInternalServerError, `Internal error occurred: unable to retrieve vmi [vm] for vm: <nil>`},
		"node gone":        {vmiCancelPath, []client.Object{markedVMI("node-1")}, http.StatusInternalServerError, `Internal error occurred: nodes "node-1" not found`},
	} {
		srv, _ := evacuationAPI(t, append(c.objs, nodeNamed("other"))...)
		code, body := call(t, srv, http.MethodPut, c.path, cancelNode1)
		require.Equal(t, c.code, code, name)
		require.Equal(t, c.msg, statusMessage(t, body), name)
	}
}

func TestDiscoveryListsEvacuateCancel(t *testing.T) {
	srv, _ := evacuationAPI(t)
	resp, err := srv.Client().Get(srv.URL + "/apis/subresources.kubevirt.io/v1")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	list := metav1.APIResourceList{}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	verbs := map[string][]string{}
	for _, r := range list.APIResources {
		verbs[r.Name] = r.Verbs
	}
	require.Equal(t, []string{"update"}, []string(verbs["virtualmachines/evacuate/cancel"]))
	require.Equal(t, []string{"update"}, []string(verbs["virtualmachineinstances/evacuate/cancel"]))
}
