//go:build integration

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

func conditionTrue(v *kubevirtv1.VirtualMachineInstance, typ kubevirtv1.VirtualMachineInstanceConditionType) bool {
	for _, c := range v.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func vmiPhase(c crclient.Client, key types.NamespacedName) kubevirtv1.VirtualMachineInstancePhase {
	v := &kubevirtv1.VirtualMachineInstance{}
	if err := c.Get(context.Background(), key, v); err != nil {
		return ""
	}
	return v.Status.Phase
}

// TestVMIRunsOnTheNodeAgentAndLeavesNothingBehind creates a VMI:
// virt-controller creates the launcher pod, kube-scheduler binds it to the
// node, the kubelet runs it and virt-handler hands it the VMI, whose guest
// boots; deleting the VMI removes the pod, its QEMU and its files.
func TestVMIRunsOnTheNodeAgentAndLeavesNothingBehind(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	v := testGuestVMI("vmi1")
	v.UID, v.Namespace = "", n.namespace(t)
	require.NoError(t, n.c.Create(ctx, v))
	key := crclient.ObjectKeyFromObject(v)

	require.Eventually(t, func() bool { return vmiPhase(n.c, key) == kubevirtv1.Running }, 3*time.Minute, 200*time.Millisecond,
		"VMI never reached Running (phase %q)", vmiPhase(n.c, key))
	got := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, n.c.Get(ctx, key, got))
	require.Equal(t, platform.NodeName, got.Status.NodeName)

	pod := launcherPodOf(t, n.c, got)
	require.Equal(t, platform.NodeName, pod.Spec.NodeName, "bound by kube-scheduler")
	require.Equal(t, corev1.PodRunning, pod.Status.Phase)
	mem := pod.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
	require.Greater(t, mem.Value(), int64(256<<20), "memory request includes the launcher overhead")

	podDir := filepath.Join(n.kubeletRoot(), "pods", string(pod.UID))
	waitForText(t, filepath.Join(launcherpod.HostEmptyDir(n.kubeletRoot(), string(pod.UID), launcherpod.PrivateVolume), "serial.log"), guestReady, 2*time.Minute)

	require.Eventually(t, func() bool {
		return n.c.Get(ctx, key, got) == nil && len(got.Status.Interfaces) == 1 && conditionTrue(got, kubevirtv1.VirtualMachineInstanceIsMigratable)
	}, 30*time.Second, 200*time.Millisecond, "interfaces and LiveMigratable not reported: %+v", got.Status)
	require.Equal(t, "default", got.Status.Interfaces[0].Name, "the webhook's default interface")
	require.Regexp(t, `^02(:[0-9a-f]{2}){5}$`, got.Status.Interfaces[0].MAC)
	require.Equal(t, kubevirtv1.BlockMigration, got.Status.MigrationMethod, "its container disk's overlay lives with the node")

	require.NoError(t, n.c.Delete(ctx, got))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(n.c.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{})) &&
			apierrors.IsNotFound(n.c.Get(ctx, crclient.ObjectKeyFromObject(&pod), &corev1.Pod{}))
	}, 2*time.Minute, 200*time.Millisecond, "VMI and launcher pod were not removed")
	require.Empty(t, qemuPID(v.Namespace+"_vmi1"), "no qemu left for the VMI")
	require.Eventually(t, func() bool {
		_, err := os.Stat(podDir)
		return os.IsNotExist(err)
	}, time.Minute, 500*time.Millisecond, "the kubelet did not remove the pod's directory")
}

// TestInvalidVMsAndVMIsAreRejectedWithUpstreamMessages goes through the
// API server and virt-api's webhooks in the virt-api pod.
func TestInvalidVMsAndVMIsAreRejectedWithUpstreamMessages(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)

	v := testGuestVMI("badvmi")
	v.UID, v.Namespace = "", ns
	v.Spec.Domain.Devices.Disks = append(v.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "missing"})
	err := n.c.Create(ctx, v)
	require.Error(t, err)
	require.Contains(t, err.Error(), "spec.domain.devices.disks[1].Name 'missing' not found.", "upstream's message capitalises Name")

	vm := testGuestVM("badvm", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	yes := true
	vm.Spec.Running = &yes
	err = n.c.Create(ctx, vm)
	require.Error(t, err)
	require.Contains(t, err.Error(), "Running and RunStrategy are mutually exclusive")

	good := testGuestVM("defaulted", kubevirtv1.RunStrategyHalted)
	good.Namespace = ns
	require.NoError(t, n.c.Create(ctx, good))
	defer deleteVM(t, n.c, good)
	got := &kubevirtv1.VirtualMachine{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKeyFromObject(good), got))
	require.Equal(t, "q35", got.Spec.Template.Spec.Domain.Machine.Type, "the mutating webhook defaulted the machine type")
	require.NotEmpty(t, got.Spec.Template.Spec.Domain.Firmware.UUID, "a new VM gets a firmware UUID, as upstream")
	require.Nil(t, got.Spec.Template.Spec.Domain.Devices.Disks[0].Disk, "disk defaults are the VMI's, not the template's")
}

func qemuPID(domainName string) string {
	out, _ := exec.Command("pgrep", "-f", "guest="+domainName+",").Output()
	return strings.TrimSpace(string(out))
}

// TestNodeAgentRestartLeavesTheGuestRunningAndAdoptsIt deletes the
// virt-handler pod while a VMI runs; its DaemonSet starts a new one: the
// same QEMU keeps running and the new agent controls it.
func TestNodeAgentRestartLeavesTheGuestRunningAndAdoptsIt(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	v := testGuestVMI("adopted")
	v.UID, v.Namespace = "", n.namespace(t)
	require.NoError(t, n.c.Create(ctx, v))
	key := crclient.ObjectKeyFromObject(v)
	require.Eventually(t, func() bool { return vmiPhase(n.c, key) == kubevirtv1.Running }, 3*time.Minute, 200*time.Millisecond)
	domain := v.Namespace + "_adopted"
	before := qemuPID(domain)
	require.NotEmpty(t, before)

	handlers := labelledPods(t, n.c, "kubevirt.io", "virt-handler")
	old := handlers["virt-handler"]
	require.NoError(t, n.c.Delete(ctx, &old))
	require.Eventually(t, func() bool {
		p, ok := labelledPods(t, n.c, "kubevirt.io", "virt-handler")["virt-handler"]
		return ok && p.UID != old.UID && podReady(p)
	}, 2*time.Minute, 250*time.Millisecond, "the DaemonSet did not bring a new virt-handler")
	require.Equal(t, before, qemuPID(domain), "the guest survived its node agent")

	_, err := n.virtctl(v.Namespace, "pause", "vmi", "adopted")
	require.NoError(t, err, "the new node agent controls the adopted launcher")
	require.Eventually(t, func() bool { return vmiPaused(n.c, key) }, 30*time.Second, 100*time.Millisecond)
	require.Equal(t, before, qemuPID(domain))

	require.NoError(t, n.c.Delete(ctx, v))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(n.c.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{})) && qemuPID(domain) == ""
	}, 2*time.Minute, 200*time.Millisecond, "VMI and its guest were not removed")
}
