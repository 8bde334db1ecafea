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
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/node/libvirt/domain"
)

const testNode = "it-node-1"

func nodeConfig(t *testing.T) handler.Config {
	dir := filepath.Join(env.dir, "nodes", testNode)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, chmodTree(env.dir))
	return handler.Config{
		NodeName: testNode, NodeIP: "127.0.0.1", Dir: dir, ImageStore: imageStore(t),
		UID: 65534, GID: 65534, DomainType: domain.TCG,
		LauncherCommand: []string{filepath.Join(env.dir, "virt-launcher")},
	}
}

func conditionTrue(v *kubevirtv1.VirtualMachineInstance, typ kubevirtv1.VirtualMachineInstanceConditionType) bool {
	for _, c := range v.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func vmiPhase(t *testing.T, key types.NamespacedName) kubevirtv1.VirtualMachineInstancePhase {
	v := &kubevirtv1.VirtualMachineInstance{}
	if err := env.admin.Get(context.Background(), key, v); err != nil {
		return ""
	}
	return v.Status.Phase
}

// TestVMIRunsOnTheNodeAgentAndLeavesNothingBehind creates a VMI on the real
// control plane: virt-controller creates the launcher pod, the real
// kube-scheduler binds it to the node agent's Node, the agent runs a real
// launcher and qemu guest; deleting the VMI removes pod, process and files.
func TestVMIRunsOnTheNodeAgentAndLeavesNothingBehind(t *testing.T) {
	node := nodeConfig(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, SkipWorker: true, Nodes: []handler.Config{node}})
	ctx := context.Background()
	v := testGuestVMI("vmi1")
	v.UID = ""
	require.NoError(t, env.admin.Create(ctx, v))
	key := crclient.ObjectKeyFromObject(v)

	require.Eventually(t, func() bool { return vmiPhase(t, key) == kubevirtv1.Running }, 3*time.Minute, 200*time.Millisecond,
		"VMI never reached Running (phase %q)", vmiPhase(t, key))
	got := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, env.admin.Get(ctx, key, got))
	require.Equal(t, testNode, got.Status.NodeName)

	pods := &corev1.PodList{}
	require.NoError(t, env.admin.List(ctx, pods, crclient.InNamespace("default"), crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(got.UID)}))
	require.Len(t, pods.Items, 1)
	pod := pods.Items[0]
	require.Equal(t, testNode, pod.Spec.NodeName, "bound by kube-scheduler")
	require.Equal(t, corev1.PodRunning, pod.Status.Phase)
	mem := pod.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
	require.Greater(t, mem.Value(), int64(256<<20), "memory request includes the launcher overhead")

	podDir := filepath.Join(node.Dir, "default_"+pod.Name)
	waitForText(t, filepath.Join(podDir, "serial.log"), guestReady, 2*time.Minute)

	require.Eventually(t, func() bool {
		return env.admin.Get(ctx, key, got) == nil && len(got.Status.Interfaces) == 1 && conditionTrue(got, kubevirtv1.VirtualMachineInstanceIsMigratable)
	}, 30*time.Second, 200*time.Millisecond, "interfaces and LiveMigratable not reported: %+v", got.Status)
	require.Equal(t, "default", got.Status.Interfaces[0].Name, "the webhook's default interface")
	require.Regexp(t, `^02(:[0-9a-f]{2}){5}$`, got.Status.Interfaces[0].MAC)

	require.NoError(t, env.admin.Delete(ctx, got))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(env.admin.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{}))
	}, 2*time.Minute, 200*time.Millisecond, "VMI was not removed")
	require.True(t, apierrors.IsNotFound(env.admin.Get(ctx, crclient.ObjectKeyFromObject(&pod), &corev1.Pod{})), "launcher pod removed")
	_, err := os.Stat(podDir)
	require.True(t, os.IsNotExist(err), "launcher directory removed")
	out, _ := exec.Command("pgrep", "-af", "qemu-system").Output()
	require.False(t, strings.Contains(string(out), "default_vmi1"), "no qemu left for the VMI: %s", out)
}

// TestInvalidVMsAndVMIsAreRejectedWithUpstreamMessages goes through the real
// API server and virt-api's webhooks.
func TestInvalidVMsAndVMIsAreRejectedWithUpstreamMessages(t *testing.T) {
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, SkipWorker: true})
	ctx := context.Background()

	v := testGuestVMI("badvmi")
	v.UID = ""
	v.Spec.Domain.Devices.Disks = append(v.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "missing"})
	err := env.admin.Create(ctx, v)
	require.Error(t, err)
	require.Contains(t, err.Error(), "spec.domain.devices.disks[1].name 'missing' not found.")

	vm := testGuestVM("badvm", kubevirtv1.RunStrategyAlways)
	yes := true
	vm.Spec.Running = &yes
	err = env.admin.Create(ctx, vm)
	require.Error(t, err)
	require.Contains(t, err.Error(), "Running and RunStrategy are mutually exclusive")

	good := testGuestVM("defaulted", kubevirtv1.RunStrategyHalted)
	require.NoError(t, env.admin.Create(ctx, good))
	defer deleteVM(t, good)
	got := &kubevirtv1.VirtualMachine{}
	require.NoError(t, env.admin.Get(ctx, crclient.ObjectKeyFromObject(good), got))
	require.Equal(t, "q35", got.Spec.Template.Spec.Domain.Machine.Type, "the mutating webhook defaulted the machine type")
	require.Equal(t, kubevirtv1.DiskBusVirtio, got.Spec.Template.Spec.Domain.Devices.Disks[0].Disk.Bus)
}

func qemuPID(t *testing.T, domainName string) string {
	out, _ := exec.Command("pgrep", "-f", "guest="+domainName+",").Output()
	return strings.TrimSpace(string(out))
}

// TestNodeAgentRestartLeavesTheGuestRunningAndAdoptsIt stops the node agent
// (with the controllers) while a VMI runs and starts new ones: the same
// qemu process keeps running and the new agent still controls it.
func TestNodeAgentRestartLeavesTheGuestRunningAndAdoptsIt(t *testing.T) {
	node := nodeConfig(t)
	cfg := platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, SkipWorker: true, Nodes: []handler.Config{node}}
	first := services(t, cfg)
	ctx := context.Background()
	v := testGuestVMI("adopted")
	v.UID = ""
	require.NoError(t, env.admin.Create(ctx, v))
	key := crclient.ObjectKeyFromObject(v)
	require.Eventually(t, func() bool { return vmiPhase(t, key) == kubevirtv1.Running }, 3*time.Minute, 200*time.Millisecond)
	before := qemuPID(t, "default_adopted")
	require.NotEmpty(t, before)

	require.NoError(t, first.Stop())
	time.Sleep(2 * time.Second)
	require.Equal(t, before, qemuPID(t, "default_adopted"), "the guest survived its node agent")

	services(t, cfg)
	_, err := runVirtctl("pause", "vmi", "adopted")
	require.NoError(t, err, "the new node agent controls the adopted launcher")
	require.Eventually(t, func() bool { return vmiPaused(key) }, 30*time.Second, 100*time.Millisecond)
	require.Equal(t, before, qemuPID(t, "default_adopted"))

	require.NoError(t, env.admin.Delete(ctx, v))
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(env.admin.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{})) && qemuPID(t, "default_adopted") == ""
	}, 2*time.Minute, 200*time.Millisecond, "VMI and its guest were not removed")
}
