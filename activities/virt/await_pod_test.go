package virt

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/virtflow/virtflow/contracts/virt"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
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

func TestATargetPodThatCannotRunFailsTheMigration(t *testing.T) {
	ctx := context.Background()
	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mig", UID: "m-1"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: "vm"}}
	req := virt.NodeRequest{Migration: planInput.Migration, VMI: planInput.VMI, Target: virt.Side{Pod: "virt-launcher-vm-bbbbb"}}
	refusedByKubelet := targetOn("node-2")
	refusedByKubelet.Status.Phase = corev1.PodFailed
	ended := runningVMI()
	ended.Status.Phase = kubevirtv1.Succeeded
	for _, c := range []struct {
		vmi  *kubevirtv1.VirtualMachineInstance
		objs []client.Object
		want string
	}{
		{runningVMI(), []client.Object{mig, refusedByKubelet}, "Migration failed because target pod shutdown during migration"},
		{runningVMI(), []client.Object{mig}, "Migration target pod was removed during active migration."},
		{ended, []client.Object{mig, targetOn("")}, "Migration failed vmi shutdown during migration."},
	} {
		a, _ := planWorld(t, c.vmi, c.objs...)
		_, err := a.AwaitTargetPod(ctx, req)
		var app *temporal.ApplicationError
		require.ErrorAs(t, err, &app)
		require.Equal(t, c.want, app.Message())
		require.True(t, app.NonRetryable(), "no retry brings such a pod back")
	}
}
