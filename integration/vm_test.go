//go:build integration

package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
)

func testGuestVM(name string, strategy kubevirtv1.VirtualMachineRunStrategy) *kubevirtv1.VirtualMachine {
	tmpl := testGuestVMI(name)
	return &kubevirtv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: kubevirtv1.VirtualMachineSpec{
			RunStrategy: &strategy,
			Template:    &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: tmpl.Spec},
		},
	}
}

func vmStatus(key types.NamespacedName) kubevirtv1.VirtualMachinePrintableStatus {
	vm := &kubevirtv1.VirtualMachine{}
	if err := env.admin.Get(context.Background(), key, vm); err != nil {
		return ""
	}
	return vm.Status.PrintableStatus
}

func runningVMI(t *testing.T, key types.NamespacedName) *kubevirtv1.VirtualMachineInstance {
	t.Helper()
	v := &kubevirtv1.VirtualMachineInstance{}
	require.Eventually(t, func() bool {
		return env.admin.Get(context.Background(), key, v) == nil && v.Status.Phase == kubevirtv1.Running && v.DeletionTimestamp == nil
	}, 3*time.Minute, 200*time.Millisecond, "VMI %s never ran", key)
	return v
}

// TestRerunOnFailureRestartsAKilledLauncher kills a VM's launcher the hard
// way; the VMI fails and the VM starts a new one.
func TestRerunOnFailureRestartsAKilledLauncher(t *testing.T) {
	node := nodeConfig(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, SkipWorker: true, Nodes: []handler.Config{node}})
	ctx := context.Background()
	vm := testGuestVM("vmrerun", kubevirtv1.RunStrategyRerunOnFailure)
	require.NoError(t, env.admin.Create(ctx, vm))
	defer deleteVM(t, vm)
	key := crclient.ObjectKeyFromObject(vm)
	first := runningVMI(t, key)
	require.Eventually(t, func() bool { return vmStatus(key) == kubevirtv1.VirtualMachineStatusRunning }, time.Minute, 200*time.Millisecond)

	pid := launcherPIDOf(t, node, first)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))

	require.Eventually(t, func() bool {
		v := &kubevirtv1.VirtualMachineInstance{}
		return env.admin.Get(ctx, key, v) == nil && v.UID != first.UID && v.Status.Phase == kubevirtv1.Running
	}, 3*time.Minute, 200*time.Millisecond, "a new VMI was not started after the launcher was killed")
	require.Eventually(t, func() bool { return vmStatus(key) == kubevirtv1.VirtualMachineStatusRunning }, time.Minute, 200*time.Millisecond)
	out, _ := exec.Command("pgrep", "-c", "-f", "guest=default_vmrerun").Output()
	require.Equal(t, "1", strings.TrimSpace(string(out)), "the killed launcher's qemu was reaped; only the new guest runs")
}

// TestHaltedAndAlwaysStopAndStartTheVM flips the run strategy.
func TestHaltedAndAlwaysStopAndStartTheVM(t *testing.T) {
	node := nodeConfig(t)
	services(t, platform.ServicesConfig{SkipHCO: true, SkipComponentOperators: true, SkipWorker: true, Nodes: []handler.Config{node}})
	ctx := context.Background()
	vm := testGuestVM("vmflip", kubevirtv1.RunStrategyHalted)
	require.NoError(t, env.admin.Create(ctx, vm))
	defer deleteVM(t, vm)
	key := crclient.ObjectKeyFromObject(vm)
	require.Eventually(t, func() bool { return vmStatus(key) == kubevirtv1.VirtualMachineStatusStopped }, time.Minute, 200*time.Millisecond)

	setStrategy(t, key, kubevirtv1.RunStrategyAlways)
	runningVMI(t, key)
	require.Eventually(t, func() bool { return vmStatus(key) == kubevirtv1.VirtualMachineStatusRunning }, time.Minute, 200*time.Millisecond)

	setStrategy(t, key, kubevirtv1.RunStrategyHalted)
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(env.admin.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{})) && vmStatus(key) == kubevirtv1.VirtualMachineStatusStopped
	}, 2*time.Minute, 200*time.Millisecond, "the VM did not stop")
}

func setStrategy(t *testing.T, key types.NamespacedName, s kubevirtv1.VirtualMachineRunStrategy) {
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, env.admin.Get(context.Background(), key, vm))
	patch := crclient.MergeFrom(vm.DeepCopy())
	vm.Spec.RunStrategy = &s
	require.NoError(t, env.admin.Patch(context.Background(), vm, patch))
}

func deleteVM(t *testing.T, vm *kubevirtv1.VirtualMachine) {
	ctx := context.Background()
	_ = env.admin.Delete(ctx, vm, crclient.PropagationPolicy(metav1.DeletePropagationForeground))
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		_ = env.admin.List(ctx, pods, crclient.InNamespace(vm.Namespace))
		return apierrors.IsNotFound(env.admin.Get(ctx, crclient.ObjectKeyFromObject(vm), &kubevirtv1.VirtualMachine{})) && len(pods.Items) == 0
	}, 2*time.Minute, 200*time.Millisecond, "VM %s and its pods were not removed", vm.Name)
}

func launcherPIDOf(t *testing.T, node handler.Config, v *kubevirtv1.VirtualMachineInstance) int {
	pods := &corev1.PodList{}
	require.NoError(t, env.admin.List(context.Background(), pods, crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(v.UID)}))
	require.Len(t, pods.Items, 1)
	data, err := os.ReadFile(filepath.Join(node.Dir, pods.Items[0].Namespace+"_"+pods.Items[0].Name, "launcher.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	require.Greater(t, pid, 1, "a launcher pid, never a process group")
	return pid
}
