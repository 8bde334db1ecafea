//go:build integration

package integration

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/integration/procs"
)

// nodeProcess is the pid of the node's kubelet or containerd (0 when none
// runs): the binary of that name whose command line names the data
// directory.
func nodeProcess(dataDir, name string) int {
	return procs.Find(func(_ int, cmdline string) bool {
		args := strings.Split(cmdline, "\x00")
		return filepath.Base(args[0]) == name && strings.Contains(cmdline, dataDir)
	})
}

// nodeReadySince tells whether the node is Ready on a heartbeat after t.
func nodeReadySince(c crclient.Client, t time.Time) bool {
	n := &corev1.Node{}
	if c.Get(context.Background(), crclient.ObjectKey{Name: platform.NodeName}, n) != nil {
		return false
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue && cond.LastHeartbeatTime.After(t)
		}
	}
	return false
}

// TestKillingTheKubeletAndContainerdLeavesTheGuestRunning kills the node's
// kubelet and containerd with SIGKILL while a VM runs: `virtflow up`
// starts them again, the node reports Ready again, the same QEMU runs the
// guest, virt-handler still controls it, and a new VM starts.
func TestKillingTheKubeletAndContainerdLeavesTheGuestRunning(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	vm := testGuestVM("survivor", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	runningVMI(t, n.c, key)
	domain := ns + "_survivor"
	qemu := qemuPID(domain)
	require.NotEmpty(t, qemu)

	killed := time.Now()
	for _, name := range []string{"kubelet", "containerd"} {
		pid := nodeProcess(n.dataDir, name)
		require.NotZero(t, pid, "no %s runs", name)
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		require.Eventually(t, func() bool {
			now := nodeProcess(n.dataDir, name)
			return now != 0 && now != pid
		}, time.Minute, 100*time.Millisecond, "%s was not started again", name)
	}
	require.Eventually(t, func() bool { return nodeReadySince(n.c, killed) }, 2*time.Minute, 500*time.Millisecond,
		"the node did not report Ready again")
	require.Equal(t, qemu, qemuPID(domain), "the same QEMU runs the guest")

	_, err := n.virtctl(ns, "pause", "vmi", "survivor")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return vmiPaused(n.c, key) }, 30*time.Second, 100*time.Millisecond, "virt-handler lost the guest")
	_, err = n.virtctl(ns, "unpause", "vmi", "survivor")
	require.NoError(t, err)

	second := testGuestVM("newcomer", kubevirtv1.RunStrategyAlways)
	second.Namespace = n.namespaceNamed(t, ns+"-2")
	require.NoError(t, n.c.Create(ctx, second))
	defer deleteVM(t, n.c, second)
	runningVMI(t, n.c, crclient.ObjectKeyFromObject(second))
	require.Equal(t, qemu, qemuPID(domain))
}
