package vmpool

import (
	"fmt"
	"math/rand/v2"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// sortPolicyOf is the policy's sort order, Random when unset.
func sortPolicyOf(p *poolv1.VirtualMachinePoolSelectionPolicy) poolv1.VirtualMachinePoolSortPolicy {
	if p == nil || p.SortPolicy == nil {
		return poolv1.VirtualMachinePoolSortPolicyRandom
	}
	return *p.SortPolicy
}

// sortVMs orders VMs by the policy; the first ones are picked first.
func sortVMs(vms []*kubevirtv1.VirtualMachine, policy poolv1.VirtualMachinePoolSortPolicy) {
	var less func(a, b *kubevirtv1.VirtualMachine) bool
	switch policy {
	case poolv1.VirtualMachinePoolSortPolicyAscendingOrder:
		less = func(a, b *kubevirtv1.VirtualMachine) bool { return ordinal(a) < ordinal(b) }
	case poolv1.VirtualMachinePoolSortPolicyDescendingOrder:
		less = func(a, b *kubevirtv1.VirtualMachine) bool { return ordinal(a) > ordinal(b) }
	case poolv1.VirtualMachinePoolSortPolicyNewest:
		less = func(a, b *kubevirtv1.VirtualMachine) bool { return a.CreationTimestamp.After(b.CreationTimestamp.Time) }
	case poolv1.VirtualMachinePoolSortPolicyOldest:
		less = func(a, b *kubevirtv1.VirtualMachine) bool { return a.CreationTimestamp.Before(&b.CreationTimestamp) }
	default:
		if policy != poolv1.VirtualMachinePoolSortPolicyRandom {
			ctrl.Log.WithName("vmpool").Info(fmt.Sprintf("Sorting VMs based on random policy as the provided sort policy is invalid: %s", policy))
		}
		rand.Shuffle(len(vms), func(i, j int) { vms[i], vms[j] = vms[j], vms[i] })
		return
	}
	sort.SliceStable(vms, func(i, j int) bool { return less(vms[i], vms[j]) })
}

// ordinal is the VM's pool index; a name without one sorts as 0.
func ordinal(vm *kubevirtv1.VirtualMachine) int {
	idx, err := indexFromName(vm.Name)
	if err != nil {
		return 0
	}
	return idx
}

// filterBySelectors keeps, in order, the VMs the policy's selectors
// match: the label selector against the VM template's labels, the node
// selector requirements against its nodeSelector, both when both are set.
func filterBySelectors(vms []*kubevirtv1.VirtualMachine, p *poolv1.VirtualMachinePoolSelectionPolicy) ([]*kubevirtv1.VirtualMachine, error) {
	if p == nil || p.Selectors == nil {
		return vms, nil
	}
	var bySel, byNode labels.Selector
	var err error
	if p.Selectors.LabelSelector != nil {
		if bySel, err = metav1.LabelSelectorAsSelector(p.Selectors.LabelSelector); err != nil {
			return nil, fmt.Errorf("failed to parse label selector from pool: %w", err)
		}
	}
	if p.Selectors.NodeSelectorRequirementMatcher != nil {
		if byNode, err = nodeSelectorAsSelector(*p.Selectors.NodeSelectorRequirementMatcher); err != nil {
			return nil, fmt.Errorf("failed to parse node selector from pool: %w", err)
		}
	}
	if bySel == nil && byNode == nil {
		return vms, nil
	}
	var out []*kubevirtv1.VirtualMachine
	for _, vm := range vms {
		var tmplLabels, nodeSel map[string]string
		if vm.Spec.Template != nil {
			tmplLabels, nodeSel = vm.Spec.Template.ObjectMeta.Labels, vm.Spec.Template.Spec.NodeSelector
		}
		if (bySel == nil || bySel.Matches(labels.Set(tmplLabels))) && (byNode == nil || byNode.Matches(labels.Set(nodeSel))) {
			out = append(out, vm)
		}
	}
	return out, nil
}

var nodeOps = map[corev1.NodeSelectorOperator]selection.Operator{
	corev1.NodeSelectorOpIn: selection.In, corev1.NodeSelectorOpNotIn: selection.NotIn,
	corev1.NodeSelectorOpExists: selection.Exists, corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	corev1.NodeSelectorOpGt: selection.GreaterThan, corev1.NodeSelectorOpLt: selection.LessThan,
}

// nodeSelectorAsSelector turns node selector requirements into a label
// selector over a VM's nodeSelector.
func nodeSelectorAsSelector(reqs []corev1.NodeSelectorRequirement) (labels.Selector, error) {
	sel := labels.NewSelector()
	for _, r := range reqs {
		op, ok := nodeOps[r.Operator]
		if !ok {
			return nil, fmt.Errorf("%q is not a valid label selector operator", r.Operator)
		}
		req, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil {
			return nil, err
		}
		sel = sel.Add(*req)
	}
	return sel, nil
}
