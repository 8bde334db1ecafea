package kubevirt

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// upstreamReplicas is what upstream's virt-operator gives every
// Deployment but virt-api's, absent spec.infra.replicas: two, under a
// budget that keeps one through a drain.
const upstreamReplicas = 2

// controllerReplicas is virt-controller's count: spec.infra.replicas,
// else upstream's two, but one where virt-api runs one. Upstream runs two
// on a single node too, where HCO then sets spec.infra.replicas to one;
// here virt-operator itself keeps one there, so that no budget blocks the
// node's drain and hco-operator writes no count it would have to take
// back when a second node comes.
func controllerReplicas(ctx context.Context, c client.Reader, owner client.Object) (int32, error) {
	if n, ok := specReplicas(owner); ok {
		return n, nil
	}
	api, err := apiReplicas(ctx, c, owner)
	if err != nil {
		return 0, err
	}
	return min(api, upstreamReplicas), nil
}

// apiReplicas is virt-api's count: spec.infra.replicas, else upstream's
// heuristic, one pod on a single node, else a tenth of the nodes and at
// least two. Upstream counts the nodes virt-handler labelled schedulable;
// this counts those that are Ready too, so a node that left for good (one
// `up --nodes 1` no longer runs) does not keep two pods and a budget that
// blocks the last node's drain; and no such node yet counts as one, where
// upstream starts two and scales down. A nil reader, as in a render that
// reads nothing, counts no node.
func apiReplicas(ctx context.Context, c client.Reader, owner client.Object) (int32, error) {
	if n, ok := specReplicas(owner); ok {
		return n, nil
	}
	var n int32
	if c != nil {
		nodes := &corev1.NodeList{}
		if err := c.List(ctx, nodes, client.MatchingLabels{kubevirtv1.NodeSchedulable: "true"}); err != nil {
			return 0, fmt.Errorf("failed to get number of nodes to determine virt-api replicas: %w", err)
		}
		for i := range nodes.Items {
			if nodeReady(&nodes.Items[i]) {
				n++
			}
		}
	}
	if n < 2 {
		return 1, nil
	}
	return max(upstreamReplicas, n/10), nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// specReplicas is the owner's spec.infra.replicas, when it sets one.
func specReplicas(owner client.Object) (int32, bool) {
	switch kv := owner.(type) {
	case *kubevirtv1.KubeVirt:
		if kv.Spec.Infra != nil && kv.Spec.Infra.Replicas != nil {
			return int32(*kv.Spec.Infra.Replicas), true
		}
	case *unstructured.Unstructured:
		if n, found, err := unstructured.NestedInt64(kv.Object, "spec", "infra", "replicas"); err == nil && found {
			return int32(n), true
		}
	}
	return 0, false
}

// replicated sets d's replica count and spreads its pods over nodes, as
// upstream's preferred anti-affinity does, then returns its disruption
// budget.
func replicated(d *appsv1.Deployment, replicas int32) *policyv1.PodDisruptionBudget {
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 1,
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: componentLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{d.Name},
				}}},
				TopologyKey: corev1.LabelHostname,
			},
		}},
	}}
	return disruptionBudget(d)
}

// disruptionBudget is upstream's budget for a component's Deployment:
// <name>-pdb, all replicas but one available. With one replica that is
// zero, which blocks no eviction; upstream deletes the budget then, where
// this keeps it (the render only applies), to the same effect.
func disruptionBudget(d *appsv1.Deployment) *policyv1.PodDisruptionBudget {
	name := d.Name + "-pdb"
	// spec.infra.replicas may ask for none.
	minAvailable := intstr.FromInt32(max(0, *d.Spec.Replicas-1))
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: name, Labels: map[string]string{componentLabel: name}},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: &minAvailable,
			Selector:     d.Spec.Selector.DeepCopy(),
		},
	}
}
