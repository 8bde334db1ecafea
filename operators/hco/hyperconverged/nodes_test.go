package hyperconverged

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

const (
	labelControlPlane = "node-role.kubernetes.io/control-plane"
	labelMaster       = "node-role.kubernetes.io/master"
)

func node(name string, roles ...string) *corev1.Node {
	labels := map[string]string{"kubernetes.io/hostname": name}
	for _, r := range roles {
		labels[r] = ""
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func nodes(ns ...*corev1.Node) []corev1.Node {
	out := make([]corev1.Node, 0, len(ns))
	for _, n := range ns {
		out = append(out, *n)
	}
	return out
}

func TestTwoWorkersMakeTheInfrastructureHighlyAvailable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []corev1.Node
		want  bool
	}{
		{"no node", nil, false},
		{"one worker", nodes(node("w1", LabelNodeRoleWorker)), false},
		{"two workers", nodes(node("w1", LabelNodeRoleWorker), node("w2", LabelNodeRoleWorker)), true},
		{"three control-plane nodes and one worker", nodes(node("cp1", labelControlPlane), node("cp2", labelControlPlane),
			node("cp3", labelMaster), node("w1", LabelNodeRoleWorker)), false},
		{"nodes without a role", nodes(node("a"), node("b")), false},
		{"two control-plane nodes that are workers too", nodes(node("c1", labelControlPlane, LabelNodeRoleWorker),
			node("c2", labelControlPlane, LabelNodeRoleWorker)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, infrastructureHighlyAvailable(tc.nodes))
		})
	}
}

func TestAWorkerLabelCountsWhateverItsValue(t *testing.T) {
	w := node("w1")
	w.Labels[LabelNodeRoleWorker] = "true"
	assert.True(t, infrastructureHighlyAvailable(nodes(w, node("w2", LabelNodeRoleWorker))))
}

func TestOnlyNodeEventsThatCanChangeTheWorkerCountPass(t *testing.T) {
	p := workerCountChanged()
	worker, plain := node("n", LabelNodeRoleWorker), node("n")
	assert.True(t, p.Create(event.CreateEvent{Object: plain}), "a node added")
	assert.True(t, p.Delete(event.DeleteEvent{Object: worker}), "a node removed")
	assert.True(t, p.Update(event.UpdateEvent{ObjectOld: plain, ObjectNew: worker}), "worker label added")
	assert.True(t, p.Update(event.UpdateEvent{ObjectOld: worker, ObjectNew: plain}), "worker label removed")

	relabelled := worker.DeepCopy()
	relabelled.Labels["topology.hostpath.csi/node"] = "n"
	assert.False(t, p.Update(event.UpdateEvent{ObjectOld: worker, ObjectNew: relabelled}), "another label")
	heartbeat := worker.DeepCopy()
	heartbeat.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	assert.False(t, p.Update(event.UpdateEvent{ObjectOld: worker, ObjectNew: heartbeat}), "a status update")
	assert.False(t, p.Generic(event.GenericEvent{Object: worker}))
}

func TestANodeEventWakesTheOneHyperConverged(t *testing.T) {
	r := &Reconciler{Namespace: "kubevirt-hyperconverged"}
	got := r.theHyperConverged(context.Background(), node("w1", LabelNodeRoleWorker))
	require.Equal(t, []reconcile.Request{{NamespacedName: types.NamespacedName{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged",
	}}}, got)
}
