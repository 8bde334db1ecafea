package virt

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestATargetPodThatDoesNotStartIsGivenUpstreamsTime(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "virt-launcher-vm-bbbbb"}, Status: corev1.PodStatus{Phase: corev1.PodPending,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}}
	require.Empty(t, overdue(pod, 299*time.Second, unschedulableTimeout, pendingTimeout))
	require.Equal(t, "unschedulable pod ns/virt-launcher-vm-bbbbb timeout period exceeded", overdue(pod, 301*time.Second, unschedulableTimeout, pendingTimeout))
	pod.Status.Conditions = nil
	require.Empty(t, overdue(pod, 301*time.Second, unschedulableTimeout, pendingTimeout), "scheduled, still pulling")
	require.Equal(t, "pending pod ns/virt-launcher-vm-bbbbb timeout period exceeded", overdue(pod, 901*time.Second, unschedulableTimeout, pendingTimeout))

	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{unschedulableTimeoutAnnotation: "30"}}}
	require.Equal(t, 30*time.Second, timeoutOf(mig, unschedulableTimeoutAnnotation, unschedulableTimeout))
	require.Equal(t, pendingTimeout, timeoutOf(mig, pendingTimeoutAnnotation, pendingTimeout))
}
