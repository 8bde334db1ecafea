package vm

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// action is what the controller does to the VMI this reconcile.
type action int

const (
	keep action = iota
	create
	remove
	// recreate deletes a finished VMI so that the next reconcile starts a
	// fresh one.
	recreate
)

// decide applies the run strategy to the current VMI (nil when absent) and
// any pending state-change request. Once and RerunOnFailure keep a finished
// VMI, which is how they remember not to start again. It is pure so every
// transition of every strategy is unit-tested.
func decide(strategy kubevirtv1.VirtualMachineRunStrategy, vmi *kubevirtv1.VirtualMachineInstance, req *kubevirtv1.VirtualMachineStateChangeRequest) action {
	if req != nil {
		switch {
		case req.Action == kubevirtv1.StopRequest && vmi != nil && vmi.DeletionTimestamp == nil:
			return remove
		case req.Action == kubevirtv1.StartRequest && vmi == nil:
			return create
		case req.Action == kubevirtv1.StartRequest && vmi != nil && vmi.IsFinal():
			return recreate
		}
	}
	switch strategy {
	case kubevirtv1.RunStrategyHalted:
		if vmi != nil && vmi.DeletionTimestamp == nil {
			return remove
		}
	case kubevirtv1.RunStrategyAlways:
		if vmi == nil {
			return create
		}
		if vmi.IsFinal() {
			return recreate
		}
	case kubevirtv1.RunStrategyRerunOnFailure:
		if vmi == nil {
			return create
		}
		if vmi != nil && vmi.Status.Phase == kubevirtv1.Failed {
			return recreate
		}
	case kubevirtv1.RunStrategyOnce:
		if vmi == nil {
			return create
		}
	}
	return keep
}

// printable is the VM's printableStatus, derived from its VMI.
func printable(vm *kubevirtv1.VirtualMachine, vmi *kubevirtv1.VirtualMachineInstance) kubevirtv1.VirtualMachinePrintableStatus {
	switch {
	case vm.DeletionTimestamp != nil:
		return kubevirtv1.VirtualMachineStatusTerminating
	case vmi == nil:
		if vm.Status.StartFailure != nil {
			return kubevirtv1.VirtualMachineStatusCrashLoopBackOff
		}
		return kubevirtv1.VirtualMachineStatusStopped
	case vmi.DeletionTimestamp != nil:
		return kubevirtv1.VirtualMachineStatusStopping
	}
	if unschedulable(vmi) {
		return kubevirtv1.VirtualMachineStatusUnschedulable
	}
	switch vmi.Status.Phase {
	case kubevirtv1.Running:
		if hasCondition(vmi, kubevirtv1.VirtualMachineInstancePaused) {
			return kubevirtv1.VirtualMachineStatusPaused
		}
		return kubevirtv1.VirtualMachineStatusRunning
	case kubevirtv1.Succeeded, kubevirtv1.Failed:
		if vm.Status.StartFailure != nil {
			return kubevirtv1.VirtualMachineStatusCrashLoopBackOff
		}
		return kubevirtv1.VirtualMachineStatusStopped
	}
	return kubevirtv1.VirtualMachineStatusStarting
}

func unschedulable(vmi *kubevirtv1.VirtualMachineInstance) bool {
	for _, c := range vmi.Status.Conditions {
		if string(c.Type) == "PodScheduled" && c.Status == "False" && c.Reason == "Unschedulable" {
			return true
		}
	}
	return false
}

func hasCondition(vmi *kubevirtv1.VirtualMachineInstance, typ kubevirtv1.VirtualMachineInstanceConditionType) bool {
	for _, c := range vmi.Status.Conditions {
		if c.Type == typ && c.Status == "True" {
			return true
		}
	}
	return false
}
