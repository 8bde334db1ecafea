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
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// agentsWith is NodeAgents for one node whose agent is served by h.
func agentsWith(t *testing.T, h http.Handler, vmi *kubevirtv1.VirtualMachineInstance) *NodeAgents {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "install", Name: "token-node1"}, Data: map[string][]byte{
		"token": []byte("t0ken"), "address": []byte(srv.Listener.Addr().String()),
	}}
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects([]client.Object{secret, vmi}...).Build()
	return &NodeAgents{Client: c, Namespace: "install", TokenSecret: func(n string) string { return "token-" + n }}
}

func runningVMI(conds ...kubevirtv1.VirtualMachineInstanceConditionType) *kubevirtv1.VirtualMachineInstance {
	v := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running, NodeName: "node1"}}
	for _, c := range conds {
		v.Status.Conditions = append(v.Status.Conditions, kubevirtv1.VirtualMachineInstanceCondition{Type: c, Status: corev1.ConditionTrue})
	}
	return v
}

func TestGuestOSInfoComesFromTheNodeAgent(t *testing.T) {
	agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "Bearer t0ken", r.Header.Get("Authorization"))
		require.Equal(t, "/v1/namespaces/ns/virtualmachineinstances/vm/guestinfo", r.URL.Path)
		_ = json.NewEncoder(w).Encode(kubevirtv1.VirtualMachineInstanceGuestAgentInfo{Hostname: "guest1", Timezone: "UTC, 0",
			OS: kubevirtv1.VirtualMachineInstanceGuestOSInfo{ID: "virtflow-test-guest", KernelRelease: "6.1.0"}})
	})
	n := agentsWith(t, agent, runningVMI(kubevirtv1.VirtualMachineInstanceAgentConnected))
	info, err := n.GuestOSInfo(context.Background(), "ns", "vm")
	require.NoError(t, err)
	require.Equal(t, "guest1", info.Hostname)
	require.Equal(t, "virtflow-test-guest", info.OS.ID)
	require.Equal(t, "6.1.0", info.OS.KernelRelease)
	require.Equal(t, "UTC, 0", info.Timezone)
}

func TestGuestOSInfoRefusedAsUpstream(t *testing.T) {
	unreachable := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { t.Error("the node agent must not be asked") })
	stopped := runningVMI()
	stopped.Status.Phase = kubevirtv1.Succeeded
	for want, vmi := range map[string]*kubevirtv1.VirtualMachineInstance{
		"VMI does not have guest agent connected": runningVMI(),
		"VMI is not running":                      stopped,
	} {
		_, err := agentsWith(t, unreachable, vmi).GuestOSInfo(context.Background(), "ns", "vm")
		require.ErrorContains(t, err, want)
		require.Equal(t, http.StatusConflict, code(err))
	}
	_, err := agentsWith(t, unreachable, runningVMI()).GuestOSInfo(context.Background(), "ns", "other")
	require.Equal(t, http.StatusNotFound, code(err))
}
