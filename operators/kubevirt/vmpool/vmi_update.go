package vmpool

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// vmiUpdate is what a VMI needs to match its VM's revision.
type vmiUpdate string

const (
	updateNone vmiUpdate = "no-update"
	// updateRestart: the VMI template changed; the VM's controller
	// recreates the deleted VMI from the new template.
	updateRestart vmiUpdate = "restart"
	// updateLabel: only the revision differs, the VMI template is the same.
	updateLabel vmiUpdate = "label-patch"
	// updateDeleteVM: the DataVolume templates changed, which only a new VM
	// (recreated by scale-out) can take.
	updateDeleteVM vmiUpdate = "vm-delete"
)

// outdatedVMI compares the revision the VM was built from with the one the
// VMI was started from. Missing VM-side information means wait (a later
// reconcile fills it in); missing VMI-side information means restart,
// since nothing tells what the VMI runs.
func (s *syncer) outdatedVMI(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance) (vmiUpdate, error) {
	vmRev, ok := vm.Labels[kubevirtv1.VirtualMachinePoolRevisionName]
	if !ok {
		return updateNone, nil
	}
	vmiRev, ok := vmi.Labels[kubevirtv1.VirtualMachinePoolRevisionName]
	if !ok {
		return updateRestart, nil
	}
	if vmRev == vmiRev {
		return updateNone, nil
	}
	want, ok, err := s.revision(vmRev)
	if err != nil || !ok {
		return updateNone, err
	}
	have, ok, err := s.revision(vmiRev)
	if err != nil {
		return updateRestart, err
	}
	if !ok {
		return updateRestart, nil
	}
	if !equality.Semantic.DeepEqual(have.VirtualMachineTemplate.Spec.DataVolumeTemplates, want.VirtualMachineTemplate.Spec.DataVolumeTemplates) {
		return updateDeleteVM, nil
	}
	if !equality.Semantic.DeepEqual(have.VirtualMachineTemplate.Spec.Template, want.VirtualMachineTemplate.Spec.Template) {
		return updateRestart, nil
	}
	return updateLabel, nil
}

// applyUpdate carries out one VMI update and reports it as upstream does,
// including its SuccessfulDelete reason for every kind of update.
func (s *syncer) applyUpdate(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance, kind vmiUpdate) error {
	var err error
	switch kind {
	case updateRestart:
		s.logUpdate(vm, "by deleting outdated VMI")
		err = s.r.Client.Delete(s.ctx, vmi)
	case updateDeleteVM:
		s.logUpdate(vm, "by deleting VM due to data volume changes")
		err = s.r.Client.Delete(s.ctx, vm, client.PropagationPolicy(metav1.DeletePropagationForeground))
	case updateLabel:
		if err := s.patchRevisionLabel(vm, vmi); err != nil {
			return err
		}
	}
	if err != nil {
		s.warn(reasonFailedUpdateVM, "Error updating resource %s/%s: %v", vm.Namespace, vm.Name, err)
		return fmt.Errorf("updating VMI of %s/%s: %w", vm.Namespace, vm.Name, err)
	}
	s.normal(reasonSuccessfulDelete, "Successfully updated resource %s/%s", vm.Namespace, vm.Name)
	return nil
}

// patchRevisionLabel relabels a VMI whose template is unchanged.
func (s *syncer) patchRevisionLabel(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance) error {
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{
		kubevirtv1.VirtualMachinePoolRevisionName: vm.Labels[kubevirtv1.VirtualMachinePoolRevisionName],
	}}})
	if err != nil {
		return fmt.Errorf("encoding label patch: %w", err)
	}
	if err := s.r.Client.Patch(s.ctx, vmi, client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("patching of vmi labels with new pool revision name: %w", err)
	}
	s.logUpdate(vm, "in pool via label patch")
	return nil
}

// maxUnavailable is how many VMIs may be unavailable during an update:
// spec.maxUnavailable as a count or a percentage of spec.replicas
// (rounded down), 100% by default, never less than one.
func maxUnavailable(pool *poolv1.VirtualMachinePool) (int, error) {
	mu := intstr.FromString("100%")
	if pool.Spec.MaxUnavailable != nil {
		mu = *pool.Spec.MaxUnavailable
	}
	n := int(mu.IntVal)
	if mu.Type == intstr.String {
		pct, err := strconv.ParseInt(strings.TrimSuffix(mu.StrVal, "%"), 10, 32)
		if err != nil {
			return 0, fmt.Errorf("invalid maxUnavailable percentage: %w", err)
		}
		n = replicas(pool) * int(pct) / 100
	}
	return max(n, 1), nil
}

// vmReady tells whether the VM's Ready condition is True.
func vmReady(vm *kubevirtv1.VirtualMachine) bool {
	for _, c := range vm.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// vmiReady tells whether the VMI runs, is Ready and is not going away.
func vmiReady(vmi *kubevirtv1.VirtualMachineInstance) bool {
	if vmi.DeletionTimestamp != nil || vmi.Status.Phase != kubevirtv1.Running {
		return false
	}
	for _, c := range vmi.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineInstanceReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
