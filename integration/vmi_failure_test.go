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
	var why string
	for _, c := range vmi.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineInstanceSynchronized && c.Reason == "PodFailed" {
			why = c.Message
		}
	}
	require.Contains(t, why, "container compute exited with code")
	require.Contains(t, why, "vmlinuz-missing", "the launcher's own words: %s", why)

	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusCrashLoopBackOff },
		30*time.Second, 100*time.Millisecond)
	require.True(t, hasEvent(t, n.c, vm.Namespace, vmi.Name, "PodFailed", "vmlinuz-missing"), "the VMI's event says why")
	require.True(t, hasEvent(t, n.c, vm.Namespace, vm.Name, "VMIFailed", "vmlinuz-missing"), "the VM's event says why")

	pod := launcherPodOf(t, n.c, vmi)
	require.Equal(t, corev1.PodFailed, pod.Status.Phase, "the failed launcher's pod is kept")
	cs, err := kubernetes.NewForConfig(n.cfg)
	require.NoError(t, err)
	log, err := cs.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: "compute"}).DoRaw(ctx)
	require.NoError(t, err, "kubectl logs of the failed launcher")
	require.Contains(t, string(log), "vmlinuz-missing")
}

// hasEvent tells whether an event about the named object has the reason
// and mentions what.
func hasEvent(t *testing.T, c crclient.Client, ns, name, reason, what string) bool {
	t.Helper()
	events := &corev1.EventList{}
	require.NoError(t, c.List(context.Background(), events, crclient.InNamespace(ns)))
	for _, e := range events.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason && strings.Contains(e.Message, what) {
			return true
		}
	}
	return false
}
