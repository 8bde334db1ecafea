package vm

import (
	"context"
	"errors"
	"fmt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/kubevirt/instancetype"
)

// syncError is a VM sync failure with upstream's condition reason.
type syncError struct {
	reason string
	err    error
}

func (e *syncError) Error() string { return e.err.Error() }
func (e *syncError) Unwrap() error { return e.err }

// matchedSpecs finds the instancetype and preference the VM names (their
// stored revisions once it has them). A missing one is a FailedFindInstancetype or FailedFindPreference sync
// error carrying the API server's words, as upstream reports it.
func matchedSpecs(ctx context.Context, c client.Reader, vm *kubevirtv1.VirtualMachine) (*v1beta1.VirtualMachineInstancetypeSpec, *v1beta1.VirtualMachinePreferenceSpec, error) {
	it, err := instancetype.InstancetypeForVM(ctx, c, vm)
	if err != nil {
		return nil, nil, &syncError{reason: "FailedFindInstancetype", err: err}
	}
	pref, err := instancetype.PreferenceForVM(ctx, c, vm)
	if err != nil {
		return nil, nil, &syncError{reason: "FailedFindPreference", err: err}
	}
	return it, pref, nil
}

// expand applies the VM's instancetype (which owns what it sets) and
// preference (which fills what the VM left unset) to the new VMI, and
// names both in the VMI's annotations as upstream does.
func expand(ctx context.Context, c client.Reader, vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance) error {
	it, pref, err := matchedSpecs(ctx, c, vm)
	if err != nil {
		return err
	}
	annotateMatchers(vm, vmi)
	instancetype.PreferAutoattach(pref, &vmi.Spec)
	if cs := instancetype.Apply(field.NewPath("spec"), it, pref, &vmi.Spec, &vmi.ObjectMeta); len(cs) > 0 {
		return &syncError{reason: "FailedCreate", err: fmt.Errorf("Failure while starting VMI: %w", cs.VMIError())}
	}
	return nil
}

func annotateMatchers(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance) {
	if m := vm.Spec.Instancetype; m != nil {
		key := kubevirtv1.ClusterInstancetypeAnnotation
		if instancetype.IsNamespaced(m.Kind, true) {
			key = kubevirtv1.InstancetypeAnnotation
		}
		vmi.Annotations[key] = m.Name
	}
	if m := vm.Spec.Preference; m != nil {
		key := kubevirtv1.ClusterPreferenceAnnotation
		if instancetype.IsNamespaced(m.Kind, false) {
			key = kubevirtv1.PreferenceAnnotation
		}
		vmi.Annotations[key] = m.Name
	}
}

// reasonOf is the condition reason for a sync error.
func reasonOf(err error) string {
	var se *syncError
	if errors.As(err, &se) {
		return se.reason
	}
	return "UnsupportedSyncError"
}

// setFailure sets upstream's Failure condition from a sync error, or
// drops it once the VM syncs again.
func setFailure(vm *kubevirtv1.VirtualMachine, failure error) {
	conds := vm.Status.Conditions[:0]
	var old *kubevirtv1.VirtualMachineCondition
	for i := range vm.Status.Conditions {
		if c := vm.Status.Conditions[i]; c.Type == kubevirtv1.VirtualMachineFailure {
			old = &c
			continue
		}
		conds = append(conds, vm.Status.Conditions[i])
	}
	vm.Status.Conditions = conds
	if failure == nil {
		return
	}
	c := kubevirtv1.VirtualMachineCondition{Type: kubevirtv1.VirtualMachineFailure, Status: corev1.ConditionTrue,
		Reason: reasonOf(failure), Message: failure.Error(), LastTransitionTime: metav1.Now()}
	if old != nil && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	vm.Status.Conditions = append(vm.Status.Conditions, c)
}
