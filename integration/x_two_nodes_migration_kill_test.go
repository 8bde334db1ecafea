//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
)

// The components a migration depends on, each killed with SIGKILL.
const (
	controlWorker = "control worker"
	sourceAgent   = "source node agent"
	targetAgent   = "target node agent"
)

// killRow is one cell of the kill matrix: what was killed when, and what
// ran afterwards.
type killRow struct {
	component string
	phase     kubevirtv1.VirtualMachineInstanceMigrationPhase
	outcome   kubevirtv1.VirtualMachineInstanceMigrationPhase
	copies    int
	node      string
}

// TestKillingAComponentAtAPhaseLeavesOneRunningCopy kills the control
// worker, the source's node agent and the target's node agent with
// SIGKILL, each while the target waits to be scheduled, while the target
// is prepared, while the target is ready and the copy not yet started, and
// while the memory is copied. Every migration ends (a killed control
// worker's resumes and succeeds; a node agent's death may fail it, the
// target pod refused by the kubelet while the agent's device plugins are
// away, or the copy's stream cut), with exactly one QEMU running the
// guest, on the node the VMI names.
func TestKillingAComponentAtAPhaseLeavesOneRunningCopy(t *testing.T) {
	n := onTwoNodes(t)
	ns := n.namespace(t)
	slowPolicy(t, n, ns)
	var rows []killRow
	i := 0
	for _, phase := range []kubevirtv1.VirtualMachineInstanceMigrationPhase{kubevirtv1.MigrationScheduling,
		kubevirtv1.MigrationPreparingTarget, kubevirtv1.MigrationTargetReady, kubevirtv1.MigrationRunning} {
		for _, component := range []string{controlWorker, sourceAgent, targetAgent} {
			i++
			name := fmt.Sprintf("killed-%d", i)
			t.Run(strings.ReplaceAll(component, " ", "-")+"-at-"+string(phase), func(t *testing.T) {
				rows = append(rows, killDuring(t, n, ns, name, component, phase))
			})
		}
	}
	var table strings.Builder
	table.WriteString("\n| killed | during | migration | QEMUs running | on |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&table, "| %s | %s | %s | %d | %s |\n", r.component, r.phase, r.outcome, r.copies, r.node)
	}
	t.Log(table.String())
}

// killDuring migrates a fresh guest from the first node, kills component
// while the migration is held at phase, and reads how it ended.
func killDuring(t *testing.T, n *upRun, ns, name, component string, phase kubevirtv1.VirtualMachineInstanceMigrationPhase) killRow {
	ctx := context.Background()
	var labels map[string]string
	if phase == kubevirtv1.MigrationRunning {
		// Slowed by the namespace's policy, so the copy outlasts the kill.
		labels = map[string]string{"migration": ns}
	}
	vm, _ := migratableGuest(t, n, ns, name, labels)
	key := crclient.ObjectKeyFromObject(vm)
	source := launcherOn(t, n, key, "virtflow-node-1")

	if phase != kubevirtv1.MigrationScheduling {
		uncordon(t, n, "virtflow-node-2")
	}
	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vm.Name}}
	require.NoError(t, n.c.Create(ctx, mig))
	release := holdAt(t, n, mig, source, phase)
	killComponent(t, n, component)
	release()
	require.Eventually(t, func() bool {
		return n.c.Get(ctx, crclient.ObjectKeyFromObject(mig), mig) == nil && mig.IsFinal()
	}, 6*time.Minute, 200*time.Millisecond, "the migration never ended after the %s was killed", component)
	row := killRow{component: component, phase: phase, outcome: mig.Status.Phase}
	row.copies, row.node = oneCopy(t, n, key)
	if component == controlWorker {
		// Its workflow resumes where it was on the restarted worker.
		require.Equal(t, kubevirtv1.MigrationSucceeded, row.outcome, "%+v", mig.Status.MigrationState)
	}
	want := map[kubevirtv1.VirtualMachineInstanceMigrationPhase]string{kubevirtv1.MigrationSucceeded: "virtflow-node-2", kubevirtv1.MigrationFailed: "virtflow-node-1"}
	require.Equal(t, want[row.outcome], row.node, "a %s migration leaves the guest there", row.outcome)
	componentsBack(t, n)
	return row
}

// oneCopy waits until exactly one QEMU runs the guest and checks the VMI
// names its node and runs; it returns the count and that node.
func oneCopy(t *testing.T, n *upRun, key crclient.ObjectKey) (int, string) {
	var nodes []string
	require.Eventually(t, func() bool {
		nodes = qemuNodes(key.Namespace + "_" + key.Name)
		return len(nodes) == 1
	}, 2*time.Minute, 500*time.Millisecond, "QEMUs running the guest: on %v", nodes)
	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.Eventually(t, func() bool {
		return n.c.Get(context.Background(), key, vmi) == nil && vmi.Status.NodeName == nodes[0] && vmi.Status.Phase == kubevirtv1.Running
	}, time.Minute, 500*time.Millisecond, "the VMI names the node its QEMU runs on (%s): %s, %s", nodes[0], vmi.Status.NodeName, vmi.Status.Phase)
	require.Eventually(t, func() bool { return runningLaunchers(t, n.c, vmi) == 1 }, 2*time.Minute, time.Second, "one launcher pod runs")
	return len(nodes), nodes[0]
}

// qemuNodes lists, per QEMU process running the domain, the node whose
// pods it belongs to (a second node's pods live under its own cgroup root).
func qemuNodes(domain string) []string {
	out, _ := exec.Command("pgrep", "-f", "guest="+domain+",").Output()
	var nodes []string
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
		if err != nil {
			continue
		}
		node := "virtflow-node-1"
		if i := strings.Index(string(cg), "/virtflow-node-"); i >= 0 {
			node = strings.SplitN(string(cg)[i+1:], "/", 2)[0]
		}
		nodes = append(nodes, node)
	}
	return nodes
}

// killComponent sends SIGKILL to the component's process.
func killComponent(t *testing.T, n *upRun, component string) {
	var pod corev1.Pod
	command := handlerCommand
	switch component {
	case controlWorker:
		pod = labelledPods(t, n.c, "app.kubernetes.io/name", "virtflow-worker")["virtflow-worker"]
		command = []string{"/usr/bin/virtflow", "control-worker"}
	case sourceAgent:
		pod = handlerOn(t, n, "virtflow-node-1")
	case targetAgent:
		pod = handlerOn(t, n, "virtflow-node-2")
	}
	require.NoError(t, syscall.Kill(podProcess(t, pod, command), syscall.SIGKILL))
}

// handlerOn is the ready virt-handler pod on node.
func handlerOn(t *testing.T, n *upRun, node string) corev1.Pod {
	var found corev1.Pod
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		if n.c.List(context.Background(), pods, crclient.InNamespace(platform.Namespace), crclient.MatchingLabels{"kubevirt.io": "virt-handler"}) != nil {
			return false
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == node && podReady(p) && p.DeletionTimestamp == nil {
				found = p
				return true
			}
		}
		return false
	}, 2*time.Minute, 200*time.Millisecond, "no ready virt-handler on %s", node)
	return found
}

// componentsBack waits for the killed components to serve again.
func componentsBack(t *testing.T, n *upRun) {
	handlerOn(t, n, "virtflow-node-1")
	handlerOn(t, n, "virtflow-node-2")
	labelledPods(t, n.c, "app.kubernetes.io/name", "virtflow-worker")
}

// liftSpeed raises the cap of a copy the source still runs; there may be
// none left (the kill ended it).
func liftSpeed(n *upRun, ns, pod, vm string) {
	_ = n.kubectl("-n", ns, "exec", pod, "-c", "compute", "--", "virsh", "-c", launcherLibvirt, "migrate-setspeed", ns+"_"+vm, "8192").Run()
}
