//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAFailedStartSaysWhyAndKeepsItsLog starts a VM whose launcher cannot
// start the guest (its kernel is missing from the container disk). The
// failed VMI carries the launcher's own words in its condition and an
// event, the VM reports the failure while it backs off, and the launcher
// pod's log stays readable while the failed VMI exists.
func TestAFailedStartSaysWhyAndKeepsItsLog(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	vm := testGuestVM("nokernel", kubevirtv1.RunStrategyAlways)
	vm.Namespace = n.namespace(t)
	vm.Spec.Template.Spec.Domain.Firmware.KernelBoot.Container.KernelPath = "/boot/vmlinuz-missing"
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)

	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.Eventually(t, func() bool {
		return n.c.Get(ctx, key, vmi) == nil && vmi.Status.Phase == kubevirtv1.Failed
	}, 2*time.Minute, 100*time.Millisecond, "the VMI never failed")
	// The node agent (from the launcher's report) or the controller
	// (from the failed pod) says why, whichever sees the failure first.
	var why string
	for _, c := range vmi.Status.Conditions {
		if c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "vmlinuz-missing") {
			why = c.Message
		}
	}
	require.NotEmpty(t, why, "a condition gives the launcher's own words: %+v", vmi.Status.Conditions)

	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusCrashLoopBackOff },
		30*time.Second, 100*time.Millisecond)
	require.Eventually(t, func() bool { return hasEvent(t, n.c, vm.Namespace, vmi.Name, "", "vmlinuz-missing") },
		10*time.Second, 200*time.Millisecond, "the VMI's event says why")
	require.True(t, hasEvent(t, n.c, vm.Namespace, vm.Name, "VMIFailed", "vmlinuz-missing"), "the VM's event says why")

	pod := launcherPodOf(t, n.c, vmi)
	require.Nil(t, pod.DeletionTimestamp, "the failed launcher's pod is kept")
	cs, err := kubernetes.NewForConfig(n.cfg)
	require.NoError(t, err)
	log, err := cs.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: "compute"}).DoRaw(ctx)
	require.NoError(t, err, "kubectl logs of the failed launcher")
	require.Contains(t, string(log), "vmlinuz-missing")
}

// hasEvent tells whether an event about the named object has the reason
// (any, when empty) and mentions what.
func hasEvent(t *testing.T, c crclient.Client, ns, name, reason, what string) bool {
	t.Helper()
	events := &corev1.EventList{}
	require.NoError(t, c.List(context.Background(), events, crclient.InNamespace(ns)))
	for _, e := range events.Items {
		if e.InvolvedObject.Name == name && (reason == "" || e.Reason == reason) && strings.Contains(e.Message, what) {
			return true
		}
	}
	return false
}
