package vmpool

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
)

// Upstream's autohealing defaults.
const (
	defaultStartUpFailureThreshold = 3
	defaultMinFailingToStart       = 5 * time.Minute
)

// failingStatuses are the printable statuses of a VM that cannot start.
var failingStatuses = map[kubevirtv1.VirtualMachinePrintableStatus]bool{
	kubevirtv1.VirtualMachineStatusCrashLoopBackOff: true,
	kubevirtv1.VirtualMachineStatusUnschedulable:    true,
	kubevirtv1.VirtualMachineStatusDataVolumeError:  true,
	kubevirtv1.VirtualMachineStatusPvcNotFound:      true,
	kubevirtv1.VirtualMachineStatusErrImagePull:     true,
	kubevirtv1.VirtualMachineStatusImagePullBackOff: true,
}

// autoheal deletes the pool's VMs that keep failing to start, through the
// proactive scale-in, so scale-out replaces them. Upstream looks at every
// VM in the namespace, other pools' and unowned ones included; only the
// pool's own VMs are healed here. healed reports that VMs were deleted;
// wait is when a VM failing for less than the minimum duration is due.
func (s *syncer) autoheal(vms []*kubevirtv1.VirtualMachine) (healed bool, wait time.Duration, err error) {
	ah := s.pool.Spec.Autohealing
	if ah == nil {
		return false, 0, nil
	}
	var failing []*kubevirtv1.VirtualMachine
	for _, vm := range vms {
		if vm.DeletionTimestamp != nil {
			continue
		}
		due := failingFor(vm, ah)
		if due <= 0 {
			failing = append(failing, vm)
		} else if due != never && (wait == 0 || due < wait) {
			wait = due
		}
	}
	if len(failing) == 0 {
		return false, wait, nil
	}
	n, err := s.scaleIn(failing, len(failing))
	return n > 0, wait, err
}

// never is failingFor's answer for a VM that is not failing.
const never = time.Duration(1 << 62)

// failingFor is how long until the VM counts as failing: zero or less when
// it already does, never when it is not failing at all.
func failingFor(vm *kubevirtv1.VirtualMachine, ah *poolv1.VirtualMachinePoolAutohealingStrategy) time.Duration {
	threshold := uint32(defaultStartUpFailureThreshold)
	if ah.StartUpFailureThreshold != nil {
		threshold = *ah.StartUpFailureThreshold
	}
	if f := vm.Status.StartFailure; f != nil && f.ConsecutiveFailCount >= int(threshold) {
		return 0
	}
	if !failingStatuses[vm.Status.PrintableStatus] {
		return never
	}
	minimum := defaultMinFailingToStart
	if ah.MinFailingToStartDuration != nil {
		minimum = ah.MinFailingToStartDuration.Duration
	}
	since, ok := notReadySince(vm)
	if !ok {
		return never
	}
	return minimum - time.Since(since)
}

// notReadySince is when the VM's Ready condition was last seen False.
// Upstream takes lastProbeTime; our VM controller does not stamp it, so
// lastTransitionTime, when the VM turned not Ready, stands in.
func notReadySince(vm *kubevirtv1.VirtualMachine) (time.Time, bool) {
	for _, c := range vm.Status.Conditions {
		if c.Type != kubevirtv1.VirtualMachineReady || c.Status != corev1.ConditionFalse {
			continue
		}
		if !c.LastProbeTime.IsZero() {
			return c.LastProbeTime.Time, true
		}
		return c.LastTransitionTime.Time, true
	}
	return time.Time{}, false
}
