package bridgemarker

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func nodeWith(res map[string]string) *corev1.Node {
	l := corev1.ResourceList{}
	for k, v := range res {
		l[corev1.ResourceName(k)] = resource.MustParse(v)
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Capacity: l, Allocatable: l.DeepCopy()}}
}

func TestNewBridgesAreAddedToCapacityAndAllocatable(t *testing.T) {
	ops := Patch(nodeWith(map[string]string{"cpu": "4"}), []string{"br1"})
	assert.Equal(t, []Op{
		{Op: "add", Path: "/status/capacity/bridge.network.kubevirt.io~1br1", Value: "1k"},
		{Op: "add", Path: "/status/allocatable/bridge.network.kubevirt.io~1br1", Value: "1k"},
	}, ops)
}

func TestVanishedBridgesAreRemovedAndOthersLeftAlone(t *testing.T) {
	n := nodeWith(map[string]string{"cpu": "4", "devices.kubevirt.io/tun": "1k", ResourcePrefix + "br1": "1k", ResourcePrefix + "old": "1k"})
	ops := Patch(n, []string{"br1", "br2"})
	assert.Equal(t, []Op{
		{Op: "remove", Path: "/status/capacity/bridge.network.kubevirt.io~1old"},
		{Op: "add", Path: "/status/capacity/bridge.network.kubevirt.io~1br2", Value: "1k"},
		{Op: "remove", Path: "/status/allocatable/bridge.network.kubevirt.io~1old"},
		{Op: "add", Path: "/status/allocatable/bridge.network.kubevirt.io~1br2", Value: "1k"},
	}, ops)
}

func TestAnUpToDateNodeNeedsNoPatch(t *testing.T) {
	n := nodeWith(map[string]string{"cpu": "4", ResourcePrefix + "br1": "1k"})
	assert.Empty(t, Patch(n, []string{"br1"}))
}

func TestAWrongQuantityIsCorrected(t *testing.T) {
	n := nodeWith(map[string]string{ResourcePrefix + "br1": "5"})
	ops := Patch(n, []string{"br1"})
	require.Len(t, ops, 2)
	assert.Equal(t, "add", ops[0].Op)
}

func TestAnAllocatableMissingTheBridgeIsCompleted(t *testing.T) {
	n := nodeWith(map[string]string{ResourcePrefix + "br1": "1k"})
	n.Status.Allocatable = corev1.ResourceList{}
	assert.Equal(t, []Op{{Op: "add", Path: "/status/allocatable/bridge.network.kubevirt.io~1br1", Value: "1k"}}, Patch(n, []string{"br1"}))
}

func TestUpdatePublishesTheBridgesOnTheNode(t *testing.T) {
	cs := fake.NewClientset(nodeWith(map[string]string{"cpu": "4", ResourcePrefix + "gone": "1k"}))
	m := &Marker{Nodes: cs.CoreV1().Nodes(), Node: "n1", List: func() ([]string, error) { return []string{"br1"}, nil }}
	assert.False(t, m.Ready())
	require.NoError(t, m.Update(context.Background()))
	assert.True(t, m.Ready())
	n, err := cs.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{})
	require.NoError(t, err)
	q := n.Status.Capacity[ResourceName("br1")]
	assert.Equal(t, int64(1000), q.Value())
	assert.Contains(t, n.Status.Allocatable, ResourceName("br1"))
	assert.NotContains(t, n.Status.Capacity, ResourceName("gone"))
	assert.Contains(t, n.Status.Capacity, corev1.ResourceCPU)
}

func TestOpsAreJSONPatch(t *testing.T) {
	b, err := json.Marshal([]Op{{Op: "remove", Path: "/status/capacity/x"}})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"op":"remove","path":"/status/capacity/x"}]`, string(b))
}

func TestInfoKindReadsTheNestedKind(t *testing.T) {
	// IFLA_INFO_KIND "bridge\0" (len 11, padded to 12), after an unrelated
	// attribute of type 9.
	attr := func(typ uint16, v []byte) []byte {
		l := 4 + len(v)
		b := make([]byte, (l+3)&^3)
		b[0], b[1], b[2], b[3] = byte(l), byte(l>>8), byte(typ), byte(typ>>8)
		copy(b[4:], v)
		return b
	}
	b := append(attr(9, []byte{1, 2, 3}), attr(1, []byte("bridge\x00"))...)
	assert.Equal(t, "bridge", infoKind(b))
	assert.Equal(t, "", infoKind(attr(9, []byte{1})))
	assert.Equal(t, "", infoKind([]byte{200, 0, 1, 0}), "a length past the end is not read")
}

func TestBridgesListsThisNamespacesBridgesOnly(t *testing.T) {
	bridges, err := Bridges()
	require.NoError(t, err)
	for _, b := range bridges {
		assert.NotEqual(t, "lo", b, "the loopback is no bridge")
	}
}
