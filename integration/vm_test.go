//go:build integration

package integration

import (
	"context"
	"fmt"
	"os/exec"
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

	"github.com/virtflow/virtflow/wire/launcherpod"
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

func vmStatus(c crclient.Client, key types.NamespacedName) kubevirtv1.VirtualMachinePrintableStatus {
	vm := &kubevirtv1.VirtualMachine{}
	if err := c.Get(context.Background(), key, vm); err != nil {
		return ""
	}
	return vm.Status.PrintableStatus
}

func runningVMI(t *testing.T, c crclient.Client, key types.NamespacedName) *kubevirtv1.VirtualMachineInstance {
	t.Helper()
	v := &kubevirtv1.VirtualMachineInstance{}
	require.Eventually(t, func() bool {
		return c.Get(context.Background(), key, v) == nil && v.Status.Phase == kubevirtv1.Running && v.DeletionTimestamp == nil
	}, 3*time.Minute, 200*time.Millisecond, "VMI %s never ran", key)
	return v
}

// TestRerunOnFailureRestartsAKilledLauncher kills a VM's launcher in its
// pod the hard way; the pod and the VMI fail and the VM starts a new one.
func TestRerunOnFailureRestartsAKilledLauncher(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	vm := testGuestVM("vmrerun", kubevirtv1.RunStrategyRerunOnFailure)
	vm.Namespace = n.namespace(t)
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	first := runningVMI(t, n.c, key)
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusRunning }, time.Minute, 200*time.Millisecond)

	require.NoError(t, syscall.Kill(podProcess(t, launcherPodOf(t, n.c, first), launcherpod.Command), syscall.SIGKILL))

	require.Eventually(t, func() bool {
		v := &kubevirtv1.VirtualMachineInstance{}
		return n.c.Get(ctx, key, v) == nil && v.UID != first.UID && v.Status.Phase == kubevirtv1.Running
	}, 3*time.Minute, 200*time.Millisecond, "a new VMI was not started after the launcher was killed")
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusRunning }, time.Minute, 200*time.Millisecond)
	require.Eventually(t, func() bool {
		out, _ := exec.Command("pgrep", "-c", "-f", "guest="+vm.Namespace+"_vmrerun").Output()
		return strings.TrimSpace(string(out)) == "1"
	}, 30*time.Second, 200*time.Millisecond, "the killed launcher's qemu went with its pod; only the new guest runs")
}

// TestHaltedAndAlwaysStopAndStartTheVM flips the run strategy.
func TestHaltedAndAlwaysStopAndStartTheVM(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	vm := testGuestVM("vmflip", kubevirtv1.RunStrategyHalted)
	vm.Namespace = n.namespace(t)
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusStopped }, time.Minute, 200*time.Millisecond)

	setStrategy(t, n.c, key, kubevirtv1.RunStrategyAlways)
	runningVMI(t, n.c, key)
	require.Eventually(t, func() bool { return vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusRunning }, time.Minute, 200*time.Millisecond)

	setStrategy(t, n.c, key, kubevirtv1.RunStrategyHalted)
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(n.c.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{})) && vmStatus(n.c, key) == kubevirtv1.VirtualMachineStatusStopped
	}, 2*time.Minute, 200*time.Millisecond, "the VM did not stop")
}

func setStrategy(t *testing.T, c crclient.Client, key types.NamespacedName, s kubevirtv1.VirtualMachineRunStrategy) {
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, c.Get(context.Background(), key, vm))
	patch := crclient.MergeFrom(vm.DeepCopy())
	vm.Spec.RunStrategy = &s
	require.NoError(t, c.Patch(context.Background(), vm, patch))
}

// deleteVM deletes the VMs of one namespace and waits until they and every
// pod of the namespace are gone.
func deleteVM(t *testing.T, c crclient.Client, vms ...*kubevirtv1.VirtualMachine) {
	ctx := context.Background()
	for _, vm := range vms {
		_ = c.Delete(ctx, vm, crclient.PropagationPolicy(metav1.DeletePropagationForeground))
	}
	var left []string
	require.Eventually(t, func() bool {
		left = left[:0]
		for _, vm := range vms {
			if !apierrors.IsNotFound(c.Get(ctx, crclient.ObjectKeyFromObject(vm), &kubevirtv1.VirtualMachine{})) {
				left = append(left, "vm/"+vm.Name)
			}
		}
		pods := &corev1.PodList{}
		_ = c.List(ctx, pods, crclient.InNamespace(vms[0].Namespace))
		for _, p := range pods.Items {
			left = append(left, fmt.Sprintf("pod/%s (%s on %s)", p.Name, p.Status.Phase, p.Spec.NodeName))
		}
		return len(left) == 0
	}, 2*time.Minute, 200*time.Millisecond, "not removed: %v", &left)
}

// launcherPodOf is the launcher pod of a VMI.
func launcherPodOf(t *testing.T, c crclient.Client, v *kubevirtv1.VirtualMachineInstance) corev1.Pod {
	pods := &corev1.PodList{}
	require.NoError(t, c.List(context.Background(), pods, crclient.InNamespace(v.Namespace), crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(v.UID)}))
	require.Len(t, pods.Items, 1)
	return pods.Items[0]
}

// podProcess finds the process of a pod on the node that runs command:
// the kubelet's cgroupfs driver puts the pod's containers under
// pod<UID>. (HOSTNAME would not do: a launcher pod is named after its
// VMI, as upstream's, and a migration's two pods share the name.)
func podProcess(t *testing.T, pod corev1.Pod, command []string) int {
	prefix := strings.Join(command, "\x00") + "\x00"
	var found int
	require.Eventually(t, func() bool {
		found = processInPod(prefix, string(pod.UID))
		return found != 0
	}, 30*time.Second, 200*time.Millisecond, "no process %v in pod %s", command, pod.Name)
	return found
}
