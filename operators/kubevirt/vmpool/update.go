package vmpool

import (
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// update rolls template changes out. VMs are always brought to the new
// template (opportunistic); unless the strategy is opportunistic, running
// VMIs built from an older template are then restarted within
// maxUnavailable (proactive). updated reports that no VM was outdated.
func (s *syncer) update(vms []*kubevirtv1.VirtualMachine) (ctrl.Result, bool, *syncError) {
	st := s.pool.Spec.UpdateStrategy
	if st != nil && st.Unmanaged != nil {
		return ctrl.Result{}, true, nil
	}
	// A VM on its way out is not worth rewriting; upstream rewrites it too.
	scope := notDeleting(vms)
	if st != nil && st.Proactive != nil {
		var err error
		if scope, err = filterBySelectors(scope, st.Proactive.SelectionPolicy); err != nil {
			return ctrl.Result{}, false, failed(reasonFailedUpdate, "failed to filter VMs based on ordered policies: %w", err)
		}
	}
	var outdated, current []*kubevirtv1.VirtualMachine
	for _, vm := range scope {
		old, err := s.isOutdatedVM(vm)
		if err != nil {
			return ctrl.Result{}, false, failed(reasonFailedUpdate, "error while detecting outdated VMs: %w", err)
		}
		if old {
			outdated = append(outdated, vm)
		} else {
			current = append(current, vm)
		}
	}
	if err := s.updateVMs(outdated); err != nil {
		return ctrl.Result{}, false, failed(reasonFailedUpdate, "error during VM update: %w", err)
	}
	var res ctrl.Result
	if st == nil || st.Opportunistic == nil {
		var err error
		if res, err = s.proactiveUpdate(current); err != nil {
			return ctrl.Result{}, false, failed(reasonFailedUpdate, "error during VMI update: %w", err)
		}
	}
	return res, len(outdated) == 0, nil
}

// isOutdatedVM tells whether the VM was built from another VM template
// than the pool's; other spec changes (nameGeneration and so on) do not
// make VMs outdated.
func (s *syncer) isOutdatedVM(vm *kubevirtv1.VirtualMachine) (bool, error) {
	name, ok := vm.Labels[kubevirtv1.VirtualMachinePoolRevisionName]
	if !ok {
		return true, nil
	}
	spec, ok, err := s.revision(name)
	if err != nil || !ok {
		return true, err
	}
	return !equality.Semantic.DeepEqual(spec.VirtualMachineTemplate, s.pool.Spec.VirtualMachineTemplate), nil
}

// updateVMs rewrites outdated VMs from the current template: their labels
// and annotations become the template's, their spec the indexed template
// spec, keeping the firmware identity the guest knows them by.
func (s *syncer) updateVMs(outdated []*kubevirtv1.VirtualMachine) error {
	if len(outdated) == 0 {
		return nil
	}
	revision, err := s.ensureRevision()
	if err != nil {
		return err
	}
	errs := parallel(len(outdated), func(i int) error {
		vm := outdated[i]
		idx, err := indexFromName(vm.Name)
		if err != nil {
			return err
		}
		next := vm.DeepCopy()
		next.Labels = maps.Clone(s.pool.Spec.VirtualMachineTemplate.ObjectMeta.Labels)
		next.Annotations = maps.Clone(s.pool.Spec.VirtualMachineTemplate.ObjectMeta.Annotations)
		next.Spec = *indexVMSpec(&s.pool.Spec, idx)
		setRevision(next, revision)
		keepFirmwareIdentity(vm, next)
		if err := s.r.Client.Update(s.ctx, next); err != nil {
			// Upstream swaps namespace and name in this message.
			s.warn(reasonFailedUpdateVM, "Error updating virtual machine %s/%s: %v", vm.Namespace, vm.Name, err)
			return err
		}
		s.normal(reasonSuccessfulUpdateVM, "Updated VM %s/%s", vm.Namespace, vm.Name)
		return nil
	})
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// keepFirmwareIdentity keeps the firmware UUID and serial a VM was given:
// they identify the machine to its guest and must not change.
func keepFirmwareIdentity(old, next *kubevirtv1.VirtualMachine) {
	if old.Spec.Template == nil || next.Spec.Template == nil || old.Spec.Template.Spec.Domain.Firmware == nil {
		return
	}
	was := old.Spec.Template.Spec.Domain.Firmware
	fw := next.Spec.Template.Spec.Domain.Firmware
	if fw == nil {
		fw = &kubevirtv1.Firmware{}
		next.Spec.Template.Spec.Domain.Firmware = fw
	}
	if was.UUID != "" {
		fw.UUID = was.UUID
	}
	if was.Serial != "" {
		fw.Serial = was.Serial
	}
}

// proactiveUpdate brings VMIs of up-to-date VMs to their VM's revision.
// Unhealthy ones go first and without limit, since restarting them costs
// no availability; then at most maxUnavailable VMIs are unavailable at a
// time, and the rest wait for a later reconcile.
func (s *syncer) proactiveUpdate(vms []*kubevirtv1.VirtualMachine) (ctrl.Result, error) {
	if err := s.updateUnhealthy(vms); err != nil {
		return ctrl.Result{}, err
	}
	budget, err := maxUnavailable(s.pool)
	if err != nil {
		return ctrl.Result{}, err
	}
	unavailable, err := s.unavailable(vms)
	if err != nil {
		return ctrl.Result{}, err
	}
	budget -= unavailable
	if st := s.pool.Spec.UpdateStrategy; st != nil && st.Proactive != nil {
		sortVMs(vms, sortPolicyOf(st.Proactive.SelectionPolicy))
	}
	for _, vm := range vms {
		if budget <= 0 {
			return ctrl.Result{RequeueAfter: retryDelay}, nil
		}
		acted, err := s.updateVMI(vm)
		if err != nil {
			return ctrl.Result{}, err
		}
		if acted {
			budget--
		}
	}
	return ctrl.Result{}, nil
}

// updateVMI applies what the VM's VMI needs, telling whether it needed
// anything.
func (s *syncer) updateVMI(vm *kubevirtv1.VirtualMachine) (bool, error) {
	vmi, err := s.vmi(vm)
	if err != nil || vmi == nil {
		return false, err
	}
	kind, err := s.outdatedVMI(vm, vmi)
	if err != nil || kind == updateNone {
		return false, err
	}
	return true, s.applyUpdate(vm, vmi, kind)
}

// updateUnhealthy updates the VMIs of VMs that are not Ready first.
// Upstream reports even a VMI that needs nothing as updated; such VMIs are
// skipped here.
func (s *syncer) updateUnhealthy(vms []*kubevirtv1.VirtualMachine) error {
	for _, vm := range vms {
		if vmReady(vm) {
			continue
		}
		vmi, err := s.vmi(vm)
		if err != nil {
			return err
		}
		if vmi == nil || vmi.DeletionTimestamp != nil {
			continue
		}
		if _, err := s.updateVMI(vm); err != nil {
			return err
		}
	}
	return nil
}

// unavailable counts VMs without a running, Ready VMI.
func (s *syncer) unavailable(vms []*kubevirtv1.VirtualMachine) (int, error) {
	n := 0
	for _, vm := range vms {
		vmi, err := s.vmi(vm)
		if err != nil {
			return 0, err
		}
		if vmi == nil || !vmiReady(vmi) {
			n++
		}
	}
	return n, nil
}

func (s *syncer) logUpdate(vm *kubevirtv1.VirtualMachine, what string) {
	ctrl.LoggerFrom(s.ctx).Info(fmt.Sprintf("Proactive update of VM %s/%s %s", vm.Namespace, vm.Name, what))
}
