package vmpool

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Event reasons, upstream's words.
const (
	reasonSuccessfulCreate   = "SuccessfulCreate"
	reasonFailedCreate       = "FailedCreate"
	reasonSuccessfulDelete   = "SuccessfulDelete"
	reasonFailedDelete       = "FailedDelete"
	reasonSuccessfulUpdateVM = "SuccessfulUpdate"
	reasonFailedUpdateVM     = "FailedUpdate"
	reasonSuccessfulPaused   = "SuccessfulPaused"
	reasonSuccessfulResume   = "SuccessfulResume"
)

func (s *syncer) normal(reason, format string, args ...any) {
	s.r.Recorder.Eventf(s.pool, corev1.EventTypeNormal, reason, format, args...)
}

func (s *syncer) warn(reason, format string, args ...any) {
	s.r.Recorder.Eventf(s.pool, corev1.EventTypeWarning, reason, format, args...)
}

// updateStatus reports the pool's VMs (those being deleted included, as
// upstream counts them), the ready ones, the selector for the scale
// subresource and the ReplicaFailure and ReplicaPaused conditions.
// Upstream rewrites the status on every sync while some VM is not ready;
// it is written here only when it changed.
func (s *syncer) updateStatus(vms []*kubevirtv1.VirtualMachine, syncErr *syncError) error {
	base := s.pool.DeepCopy()
	st := &s.pool.Status
	st.LabelSelector = s.selector.String()
	st.Replicas = int32(len(vms))
	st.ReadyReplicas = 0
	for _, vm := range vms {
		if vmReady(vm) {
			st.ReadyReplicas++
		}
	}
	s.setFailure(syncErr)
	s.setPaused()
	if equality.Semantic.DeepEqual(base.Status, s.pool.Status) {
		return nil
	}
	if err := s.r.Client.Status().Patch(s.ctx, s.pool, client.MergeFrom(base)); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("updating status of pool %s/%s: %w", s.pool.Namespace, s.pool.Name, err))
	}
	return nil
}

// setFailure adds ReplicaFailure when a step failed and it is not there
// yet (an existing one keeps its first message, as upstream), and drops it
// once a sync succeeds.
func (s *syncer) setFailure(syncErr *syncError) {
	has := findCondition(s.pool, poolv1.VirtualMachinePoolReplicaFailure) >= 0
	switch {
	case syncErr != nil && !has:
		s.addCondition(poolv1.VirtualMachinePoolReplicaFailure, syncErr.reason, syncErr.Error())
		s.warn(syncErr.reason, "%s", syncErr.Error())
	case syncErr == nil && has:
		s.removeCondition(poolv1.VirtualMachinePoolReplicaFailure)
	}
}

func (s *syncer) setPaused() {
	has := findCondition(s.pool, poolv1.VirtualMachinePoolReplicaPaused) >= 0
	switch {
	case s.pool.Spec.Paused && !has:
		s.addCondition(poolv1.VirtualMachinePoolReplicaPaused, reasonSuccessfulPaused, "Pool controller is paused")
		s.normal(reasonSuccessfulPaused, "Pool is paused")
	case !s.pool.Spec.Paused && has:
		s.removeCondition(poolv1.VirtualMachinePoolReplicaPaused)
		s.normal(reasonSuccessfulResume, "Pool is unpaused")
	}
}

func findCondition(pool *poolv1.VirtualMachinePool, t poolv1.VirtualMachinePoolConditionType) int {
	for i, c := range pool.Status.Conditions {
		if c.Type == t {
			return i
		}
	}
	return -1
}

func (s *syncer) addCondition(t poolv1.VirtualMachinePoolConditionType, reason, msg string) {
	s.pool.Status.Conditions = append(s.pool.Status.Conditions, poolv1.VirtualMachinePoolCondition{
		Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastTransitionTime: metav1.Now(),
	})
}

func (s *syncer) removeCondition(t poolv1.VirtualMachinePoolConditionType) {
	var kept []poolv1.VirtualMachinePoolCondition
	for _, c := range s.pool.Status.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	s.pool.Status.Conditions = kept
}
