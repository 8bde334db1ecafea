package vmireplicaset

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// classify splits the owned VMIs into those that count as replicas and
// those to delete and replace: finished ones (Succeeded or Failed) and
// those whose pod is terminating. VMIs already being deleted are in
// neither: they no longer count, and their deletion is under way.
func classify(vmis []*kubevirtv1.VirtualMachineInstance) (active, finished []*kubevirtv1.VirtualMachineInstance) {
	for _, vmi := range vmis {
		switch {
		case vmi.DeletionTimestamp != nil:
		case vmi.IsFinal() || podTerminating(vmi):
			finished = append(finished, vmi)
		default:
			active = append(active, vmi)
		}
	}
	return active, finished
}

func podTerminating(vmi *kubevirtv1.VirtualMachineInstance) bool {
	c := readyCondition(vmi)
	return c != nil && c.Status == corev1.ConditionFalse && c.Reason == kubevirtv1.PodTerminatingReason
}

func isReady(vmi *kubevirtv1.VirtualMachineInstance) bool {
	c := readyCondition(vmi)
	return c != nil && c.Status == corev1.ConditionTrue
}

func readyCondition(vmi *kubevirtv1.VirtualMachineInstance) *kubevirtv1.VirtualMachineInstanceCondition {
	for i := range vmi.Status.Conditions {
		if vmi.Status.Conditions[i].Type == kubevirtv1.VirtualMachineInstanceReady {
			return &vmi.Status.Conditions[i]
		}
	}
	return nil
}

// wantedReplicas is spec.replicas; unset means one, as upstream.
func wantedReplicas(rs *kubevirtv1.VirtualMachineInstanceReplicaSet) int {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return int(*rs.Spec.Replicas)
}

// updateStatus writes replicas, readyReplicas, the label selector and the
// conditions, and records the pause or resume once it is written. Like
// upstream it writes nothing when none of them changed.
func (r *Reconciler) updateStatus(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet,
	active []*kubevirtv1.VirtualMachineInstance, scaleErr error) error {
	ready := int32(0)
	for _, vmi := range active {
		if isReady(vmi) {
			ready++
		}
	}
	selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return fmt.Errorf("parsing the selector of VirtualMachineInstanceReplicaSet %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	pausedMatch := rs.Spec.Paused == hasCondition(rs, kubevirtv1.VirtualMachineInstanceReplicaSetReplicaPaused)
	if int32(len(active)) == rs.Status.Replicas && ready == rs.Status.ReadyReplicas && pausedMatch &&
		(scaleErr != nil) == hasCondition(rs, kubevirtv1.VirtualMachineInstanceReplicaSetReplicaFailure) &&
		selector.String() == rs.Status.LabelSelector {
		return nil
	}
	rs.Status.LabelSelector = selector.String()
	rs.Status.Replicas = int32(len(active))
	rs.Status.ReadyReplicas = ready
	setPaused(rs)
	setFailure(rs, len(active)-wantedReplicas(rs), scaleErr)
	if err := r.Client.Status().Update(ctx, rs); err != nil {
		return fmt.Errorf("updating VirtualMachineInstanceReplicaSet %s/%s status: %w", rs.Namespace, rs.Name, err)
	}
	if !pausedMatch {
		if rs.Spec.Paused {
			r.Recorder.Eventf(rs, corev1.EventTypeNormal, ReasonSuccessfulPaused, "Paused")
		} else {
			r.Recorder.Eventf(rs, corev1.EventTypeNormal, ReasonSuccessfulResumed, "Resumed")
		}
	}
	return nil
}

func setPaused(rs *kubevirtv1.VirtualMachineInstanceReplicaSet) {
	has := hasCondition(rs, kubevirtv1.VirtualMachineInstanceReplicaSetReplicaPaused)
	switch {
	case rs.Spec.Paused && !has:
		rs.Status.Conditions = append(rs.Status.Conditions, kubevirtv1.VirtualMachineInstanceReplicaSetCondition{
			Type: kubevirtv1.VirtualMachineInstanceReplicaSetReplicaPaused, Status: corev1.ConditionTrue,
			Reason: "Paused", Message: "Controller got paused", LastTransitionTime: metav1.Now(),
		})
	case !rs.Spec.Paused && has:
		removeCondition(rs, kubevirtv1.VirtualMachineInstanceReplicaSetReplicaPaused)
	}
}

// setFailure adds ReplicaFailure when a sync failed, with the raw API error
// as message. Like upstream, an existing condition is kept as it is rather
// than refreshed, and the reason follows the direction of the scale:
// FailedCreate when replicas were missing, FailedDelete otherwise.
func setFailure(rs *kubevirtv1.VirtualMachineInstanceReplicaSet, diff int, scaleErr error) {
	has := hasCondition(rs, kubevirtv1.VirtualMachineInstanceReplicaSetReplicaFailure)
	switch {
	case scaleErr != nil && !has:
		reason := ReasonFailedDelete
		if diff < 0 {
			reason = ReasonFailedCreate
		}
		rs.Status.Conditions = append(rs.Status.Conditions, kubevirtv1.VirtualMachineInstanceReplicaSetCondition{
			Type: kubevirtv1.VirtualMachineInstanceReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: reason, Message: scaleErr.Error(), LastTransitionTime: metav1.Now(),
		})
	case scaleErr == nil && has:
		removeCondition(rs, kubevirtv1.VirtualMachineInstanceReplicaSetReplicaFailure)
	}
}

func hasCondition(rs *kubevirtv1.VirtualMachineInstanceReplicaSet, t kubevirtv1.VirtualMachineInstanceReplicaSetConditionType) bool {
	for _, c := range rs.Status.Conditions {
		if c.Type == t {
			return true
		}
	}
	return false
}

func removeCondition(rs *kubevirtv1.VirtualMachineInstanceReplicaSet, t kubevirtv1.VirtualMachineInstanceReplicaSetConditionType) {
	var kept []kubevirtv1.VirtualMachineInstanceReplicaSetCondition
	for _, c := range rs.Status.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	rs.Status.Conditions = kept
}
