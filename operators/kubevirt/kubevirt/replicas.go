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

// infraReplicas is how many pods virt-api and virt-controller run, by
// upstream's virt-api heuristic: one on a single node, else a tenth of the
// nodes virt-handler made schedulable and at least two, so that `kubectl
// drain` of any node leaves one serving (their disruption budgets keep
// it). Two differences from upstream, both on one node: virt-controller
// follows the same count (upstream runs two there, whose budget then
// blocks the node's drain for good), and a cluster whose nodes are not
// labelled yet counts as one node (upstream starts two, then scales down).
// A KubeVirt CR's spec.infra.replicas overrides the count, as upstream's.
// A nil reader, as in a render that reads nothing, counts no node.
func infraReplicas(ctx context.Context, c client.Reader, owner client.Object) (int32, error) {
	if n, ok := specReplicas(owner); ok {
		return n, nil
	}
	if c == nil {
		return 1, nil
	}
	nodes := &metav1.PartialObjectMetadataList{}
	nodes.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	if err := c.List(ctx, nodes, client.MatchingLabels{kubevirtv1.NodeSchedulable: "true"}); err != nil {
		return 0, fmt.Errorf("failed to get number of nodes to determine virt-api replicas: %w", err)
	}
	n := int32(len(nodes.Items))
	if n < 2 {
		return 1, nil
	}
	return max(2, n/10), nil
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
