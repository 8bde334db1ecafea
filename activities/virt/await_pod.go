package virt

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/virt"
)

// Upstream's bounds on a target pod that does not start, and the
// migration annotations that change them.
const (
	unschedulableTimeout           = 300 * time.Second
	pendingTimeout                 = 900 * time.Second
	unschedulableTimeoutAnnotation = "kubevirt.io/migrationUnschedulablePodTimeoutSeconds"
	pendingTimeoutAnnotation       = "kubevirt.io/migrationPendingPodTimeoutSeconds"
)

// awaitPoll is how often the target pod is read.
var awaitPoll = time.Second

// AwaitTargetPod waits until the scheduler placed the target pod and the
// kubelet runs it, heartbeating its phase, and returns its node. A pod
// unschedulable or pending past upstream's timeouts (from its creation,
// so a retried step does not restart the clock) is deleted and the
// migration fails with upstream's words.
func (a *Activities) AwaitTargetPod(ctx context.Context, req virt.NodeRequest) (string, error) {
	mig, err := a.migration(ctx, req)
	if err != nil {
		return "", err
	}
	unschedulable := timeoutOf(mig, unschedulableTimeoutAnnotation, unschedulableTimeout)
	pending := timeoutOf(mig, pendingTimeoutAnnotation, pendingTimeout)
	for {
		pod, err := a.awaitedTarget(ctx, req)
		if err != nil {
			return "", err
		}
		if pod.Status.Phase == corev1.PodRunning && pod.Spec.NodeName != "" {
			return pod.Spec.NodeName, nil
		}
		if msg := overdue(pod, time.Since(pod.CreationTimestamp.Time), unschedulable, pending); msg != "" {
			if err := a.deleteChecked(ctx, pod); err != nil {
				return "", err
			}
			return "", temporal.NewNonRetryableApplicationError(msg, virt.ErrTypeTargetNotScheduled, nil)
		}
		activity.RecordHeartbeat(ctx, string(pod.Status.Phase))
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(awaitPoll):
		}
	}
}

// awaitedTarget reads the target pod, failing the migration with
// upstream's words when it can no longer run the guest: the pod ended
// (the kubelet refused it, say) or went, or the VMI itself ended.
func (a *Activities) awaitedTarget(ctx context.Context, req virt.NodeRequest) (*corev1.Pod, error) {
	vmi, err := a.vmi(ctx, req.VMI)
	if gone(err) || err == nil && vmi.IsFinal() {
		return nil, failed("Migration failed vmi shutdown during migration.")
	}
	if err != nil {
		return nil, err
	}
	pod, err := a.targetPodOf(ctx, req)
	if gone(err) {
		return nil, failed("Migration target pod was removed during active migration.")
	}
	if err != nil {
		return nil, err
	}
	if down(pod) {
		return nil, failed("Migration failed because target pod shutdown during migration")
	}
	return pod, nil
}

// down tells a pod that will never run: ended, or being deleted.
func down(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded || pod.DeletionTimestamp != nil
}

func failed(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, virt.ErrTypeMigrationFailed, nil)
}

// overdue is upstream's message for a pod past its timeout, empty if none.
func overdue(pod *corev1.Pod, age, unschedulable, pending time.Duration) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable && age > unschedulable {
			return fmt.Sprintf("unschedulable pod %s/%s timeout period exceeded", pod.Namespace, pod.Name)
		}
	}
	if pod.Status.Phase == corev1.PodPending && age > pending {
		return fmt.Sprintf("pending pod %s/%s timeout period exceeded", pod.Namespace, pod.Name)
	}
	return ""
}

// timeoutOf reads a migration's timeout annotation in seconds.
func timeoutOf(mig *kubevirtv1.VirtualMachineInstanceMigration, annotation string, def time.Duration) time.Duration {
	if s, err := strconv.Atoi(mig.Annotations[annotation]); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return def
}
