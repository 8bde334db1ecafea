package kubevirt

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// node is a node, Ready or not, that virt-handler made schedulable or not.
func node(name string, schedulable, ready bool) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if schedulable {
		n.Labels = map[string]string{kubevirtv1.NodeSchedulable: "true"}
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
	return n
}

// nodes is a reader holding n Ready nodes virt-handler made schedulable,
// one it did not, and one that is labelled but not Ready (gone).
func nodes(n int) client.Reader {
	objs := []client.Object{node("unlabelled", false, true), node("gone", true, false)}
	for i := range n {
		objs = append(objs, node(fmt.Sprintf("node-%d", i), true, true))
	}
	return fake.NewClientBuilder().WithObjects(objs...).Build()
}

// budget is the PodDisruptionBudget among objs.
func budget(t *testing.T, objs []client.Object) *policyv1.PodDisruptionBudget {
	t.Helper()
	for _, o := range objs {
		if p, ok := o.(*policyv1.PodDisruptionBudget); ok {
			return p
		}
	}
	t.Fatal("no PodDisruptionBudget rendered")
	return nil
}

// Upstream's heuristic, over the Ready nodes virt-handler labelled.
func TestVirtAPIReplicasFollowTheSchedulableNodes(t *testing.T) {
	for nodeCount, want := range map[int]int32{0: 1, 1: 1, 2: 2, 19: 2, 35: 3} {
		got, err := apiReplicas(context.Background(), nodes(nodeCount), owner())
		require.NoError(t, err)
		require.Equal(t, want, got, "%d nodes", nodeCount)
	}
}

// On two nodes each Deployment runs two pods, preferably apart, and a
// budget keeps one of them through a drain; on one node each runs one pod,
// whose budget blocks nothing; on 35 virt-api runs three, virt-controller
// upstream's two.
func TestVirtAPIAndVirtControllerKeepOnePodThroughADrain(t *testing.T) {
	cases := map[string]map[int]int{"virt-api": {1: 0, 2: 1, 35: 2}, "virt-controller": {1: 0, 2: 1, 35: 1}}
	for component, byNodes := range cases {
		for nodeCount, minAvailable := range byNodes {
			objs, err := install.Render(context.Background(), nodes(nodeCount), owner(), component)
			require.NoError(t, err)
			d := objs[0].(*appsv1.Deployment)
			require.Equal(t, int32(minAvailable+1), *d.Spec.Replicas, "%s on %d nodes", component, nodeCount)
			pdb := budget(t, objs)
			require.Equal(t, component+"-pdb", pdb.Name)
			require.Equal(t, d.Namespace, pdb.Namespace)
			require.Equal(t, minAvailable, pdb.Spec.MinAvailable.IntValue())
			require.Equal(t, d.Spec.Selector, pdb.Spec.Selector)
			term := d.Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
			require.Equal(t, corev1.LabelHostname, term.TopologyKey)
			sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
			require.NoError(t, err)
			require.True(t, sel.Matches(k8slabels.Set(d.Spec.Template.Labels)), "the anti-affinity selects the component's own pods")
		}
	}
}

// The KubeVirt CR's spec.infra.replicas wins over the node count, typed or
// as the reconciler reads it.
func TestSpecInfraReplicasOverrideTheNodeCount(t *testing.T) {
	three := uint8(3)
	kv := owner().(*kubevirtv1.KubeVirt)
	kv.Spec.Infra = &kubevirtv1.ComponentConfig{Replicas: &three}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(kv)
	require.NoError(t, err)
	for _, o := range []client.Object{kv, &unstructured.Unstructured{Object: m}} {
		for _, component := range []string{"virt-api", "virt-controller"} {
			objs, err := install.Render(context.Background(), nodes(1), o, component)
			require.NoError(t, err)
			require.Equal(t, int32(3), *objs[0].(*appsv1.Deployment).Spec.Replicas, "%s of a %T", component, o)
			require.Equal(t, 2, budget(t, objs).Spec.MinAvailable.IntValue())
		}
	}
}
