//go:build integration

package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/integration/procs"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// holdAt keeps mig at phase until the returned release is called, the way
// a slow cluster would: the second node cordoned (Scheduling), the target
// pod's launcher stopped (PreparingTarget: the target never says it
// waits), the source's launcher stopped (TargetReady: the copy is asked
// for and never starts), or the copy capped by the namespace's policy
// (Running). It returns once mig is at phase, held.
func holdAt(t *testing.T, n *upRun, mig *kubevirtv1.VirtualMachineInstanceMigration, source *corev1.Pod, phase kubevirtv1.VirtualMachineInstanceMigrationPhase) func() {
	key := crclient.ObjectKey{Namespace: mig.Namespace, Name: mig.Spec.VMIName}
	release := func() {}
	switch phase {
	case kubevirtv1.MigrationScheduling:
		// The cordoned second node keeps the target pending until then.
		release = func() { uncordon(t, n, "virtflow-node-2") }
	case kubevirtv1.MigrationPreparingTarget:
		release = stopProcess(t, launcherProcess(t, n, key, "virtflow-node-2"))
	case kubevirtv1.MigrationTargetReady:
		// Found before the target is prepared, stopped while it is.
		pid := launcherProcess(t, n, key, "virtflow-node-1")
		awaitMigrationPhase(t, n, mig, kubevirtv1.MigrationPreparingTarget)
		release = stopProcess(t, pid)
	}
	awaitMigrationPhase(t, n, mig, phase)
	switch phase {
	case kubevirtv1.MigrationPreparingTarget, kubevirtv1.MigrationTargetReady:
		// The stopped launcher keeps the migration where it is.
		time.Sleep(2 * time.Second)
		require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKeyFromObject(mig), mig))
		require.Equal(t, phase, mig.Status.Phase, "the migration went on past a stopped launcher")
	case kubevirtv1.MigrationRunning:
		// Running says the source started the copy; the kill waits for
		// libvirt's job to hold the policy's cap, then whatever still
		// copies need not crawl at its pace.
		require.Eventually(t, func() bool { return migrationBandwidth(n, key.Namespace, source.Name, key.Name) == 1<<20 },
			time.Minute, 100*time.Millisecond, "the copy never started")
		release = func() { liftSpeed(n, key.Namespace, source.Name, key.Name) }
	}
	return release
}

// awaitMigrationPhase waits until mig reports phase.
func awaitMigrationPhase(t *testing.T, n *upRun, mig *kubevirtv1.VirtualMachineInstanceMigration, phase kubevirtv1.VirtualMachineInstanceMigrationPhase) {
	require.Eventually(t, func() bool {
		return n.c.Get(context.Background(), crclient.ObjectKeyFromObject(mig), mig) == nil && mig.Status.Phase == phase
	}, 3*time.Minute, 50*time.Millisecond, "the migration never reached %s (it is %s)", phase, mig.Status.Phase)
}

// stopProcess sends SIGSTOP to pid and returns what sends SIGCONT, once;
// the test's end sends it too, so a failed test leaves nothing stopped.
func stopProcess(t *testing.T, pid int) func() {
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	var once sync.Once
	resume := func() { once.Do(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) }
	t.Cleanup(resume)
	return resume
}

// launcherProcess waits for the launcher of the VMI's pod on node to run
// and returns its process, found by its command and its pod's cgroup.
func launcherProcess(t *testing.T, n *upRun, key crclient.ObjectKey, node string) int {
	prefix := strings.Join(launcherpod.Command, "\x00") + "\x00"
	pid := 0
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		if n.c.List(context.Background(), pods, crclient.InNamespace(key.Namespace), crclient.MatchingLabels{"vm.kubevirt.io/name": key.Name}) != nil {
			return false
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == node && p.DeletionTimestamp == nil {
				if pid = processInPod(prefix, string(p.UID)); pid != 0 {
					return true
				}
			}
		}
		return false
	}, 3*time.Minute, 20*time.Millisecond, "no launcher of %s runs on %s", key, node)
	return pid
}

// processInPod is a process whose command line starts with prefix in the
// pod whose UID is uid (its cgroup path names the pod), or 0.
func processInPod(prefix, uid string) int {
	return procs.Find(func(pid int, cmdline string) bool {
		if !strings.HasPrefix(cmdline, prefix) {
			return false
		}
		cg, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
		return bytes.Contains(cg, []byte("pod"+uid)) || bytes.Contains(cg, []byte("pod"+strings.ReplaceAll(uid, "-", "_")))
	})
}
