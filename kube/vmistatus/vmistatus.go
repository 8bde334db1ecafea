// Package vmistatus holds the VMI status rules virt-controller and the node
// agent share: phase transitions with their timestamps, condition updates,
// and the LiveMigratable condition.
package vmistatus

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// SetPhase moves the VMI to phase and records when, as upstream's
// phaseTransitionTimestamps do (creation-to-Running latency is read from them).
func SetPhase(vmi *kubevirtv1.VirtualMachineInstance, phase kubevirtv1.VirtualMachineInstancePhase) {
	if vmi.Status.Phase == phase {
		return
	}
	vmi.Status.Phase = phase
	vmi.Status.PhaseTransitionTimestamps = append(vmi.Status.PhaseTransitionTimestamps,
		kubevirtv1.VirtualMachineInstancePhaseTransitionTimestamp{Phase: phase, PhaseTransitionTimestamp: metav1.Now()})
}

// SetCondition sets a condition, moving lastTransitionTime only on a change
// of status.
func SetCondition(vmi *kubevirtv1.VirtualMachineInstance, typ kubevirtv1.VirtualMachineInstanceConditionType, status corev1.ConditionStatus, reason, msg string) {
	for i, c := range vmi.Status.Conditions {
		if c.Type == typ {
			if c.Status != status {
				vmi.Status.Conditions[i].LastTransitionTime = metav1.Now()
			}
			vmi.Status.Conditions[i].Status, vmi.Status.Conditions[i].Reason, vmi.Status.Conditions[i].Message = status, reason, msg
			return
		}
	}
	vmi.Status.Conditions = append(vmi.Status.Conditions, kubevirtv1.VirtualMachineInstanceCondition{
		Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.Now(),
	})
}
