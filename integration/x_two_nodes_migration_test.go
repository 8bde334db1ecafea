//go:build integration

package integration

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
)

// TestARunningGuestMovesLiveToTheOtherNode migrates a guest started on
// the first node with a VirtualMachineInstanceMigration: the VMIM goes
// through upstream's phases to Succeeded, the VMI runs on the second node
// without having booted there (its serial output there has no boot) and
// counting on from where it was, the
// source's launcher is gone and one launcher pod runs, and the guest
// answers on its new pod address; then it moves back.
func TestARunningGuestMovesLiveToTheOtherNode(t *testing.T) {
	n := onTwoNodes(t)
	ctx := context.Background()
	ns := n.namespace(t)
	vm := testGuestVM("mover", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	vmi := runningVMI(t, n.c, key)
	require.Equal(t, "virtflow-node-1", vmi.Status.NodeName, "the second node is cordoned")
	require.Eventually(t, func() bool { return liveMigratable(n.c, key) }, time.Minute, time.Second)
	startCounter(t, n, key)

	uncordon(t, n, "virtflow-node-2")
	counted := lastCount(serialLogOn(t, n, key, "virtflow-node-1"))
	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "move-1"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vm.Name}}
	require.NoError(t, n.c.Create(ctx, mig))
	start := time.Now()
	require.Eventually(t, func() bool {
		return n.c.Get(ctx, crclient.ObjectKeyFromObject(mig), mig) == nil && mig.IsFinal()
	}, 5*time.Minute, 200*time.Millisecond, "the migration never ended")
	t.Logf("migrated in %s; phases %v", time.Since(start), phasesOf(mig))
	require.Equal(t, kubevirtv1.MigrationSucceeded, mig.Status.Phase, "%+v", mig.Status.MigrationState)
	require.Subset(t, phasesOf(mig), []kubevirtv1.VirtualMachineInstanceMigrationPhase{
		kubevirtv1.MigrationPending, kubevirtv1.MigrationScheduling, kubevirtv1.MigrationScheduled,
		kubevirtv1.MigrationPreparingTarget, kubevirtv1.MigrationTargetReady, kubevirtv1.MigrationRunning, kubevirtv1.MigrationSucceeded})

	require.NoError(t, n.c.Get(ctx, key, vmi))
	require.Equal(t, "virtflow-node-2", vmi.Status.NodeName)
	require.Equal(t, kubevirtv1.Running, vmi.Status.Phase)
	st := vmi.Status.MigrationState
	require.NotNil(t, st)
	require.True(t, st.Completed)
	require.False(t, st.Failed)
	require.Equal(t, "virtflow-node-1", st.SourceNode)
	require.Equal(t, "virtflow-node-2", st.TargetNode)
	require.Equal(t, kubevirtv1.MigrationPreCopy, st.Mode, "an idle guest's copy converges by itself")
	require.Eventually(t, func() bool { return runningLaunchers(t, n.c, vmi) == 1 }, time.Minute, time.Second,
		"one launcher runs the guest: the source's went")

	node := &corev1.Node{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKey{Name: "virtflow-node-2"}, node))
	cidr := netip.MustParsePrefix(node.Spec.PodCIDR)
	var ip string
	require.Eventually(t, func() bool {
		got := &kubevirtv1.VirtualMachineInstance{}
		if n.c.Get(ctx, key, got) != nil || len(got.Status.Interfaces) == 0 {
			return false
		}
		ip = got.Status.Interfaces[0].IP
		addr, err := netip.ParseAddr(ip)
		return err == nil && cidr.Contains(addr)
	}, time.Minute, time.Second, "the VMI reports the target pod's address")
	require.Equal(t, "VIRTFLOW-GUEST-HTTP mover", strings.TrimSpace(httpGet(t, "http://"+ip+"/")), "the guest answers on the target pod's address")
	requireNoBootOn(t, n, key, "virtflow-node-2")
	requireCountsOn(t, n, key, "virtflow-node-2", counted)

	// And back, from the pod the first migration brought it to.
	counted = lastCount(serialLogOn(t, n, key, "virtflow-node-2"))
	back := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "move-back"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vm.Name}}
	require.NoError(t, n.c.Create(ctx, back))
	require.Eventually(t, func() bool {
		return n.c.Get(ctx, crclient.ObjectKeyFromObject(back), back) == nil && back.IsFinal()
	}, 5*time.Minute, 200*time.Millisecond, "the migration back never ended")
	require.Equal(t, kubevirtv1.MigrationSucceeded, back.Status.Phase, "%+v", back.Status.MigrationState)
	require.NoError(t, n.c.Get(ctx, key, vmi))
	require.Equal(t, "virtflow-node-1", vmi.Status.NodeName)
	requireNoBootOn(t, n, key, "virtflow-node-1")
	requireCountsOn(t, n, key, "virtflow-node-1", counted)
}

// requireNoBootOn checks that the guest did not start on node: its
// serial output there has no boot, which prints guestReady.
func requireNoBootOn(t *testing.T, n *upRun, key crclient.ObjectKey, node string) {
	t.Helper()
	require.NotContains(t, serialLogOn(t, n, key, node), guestReady, "the guest came by migration to %s, it did not boot there", node)
}

func liveMigratable(c crclient.Client, key crclient.ObjectKey) bool {
	v := &kubevirtv1.VirtualMachineInstance{}
	if c.Get(context.Background(), key, v) != nil {
		return false
	}
	for _, cond := range v.Status.Conditions {
		if cond.Type == kubevirtv1.VirtualMachineInstanceIsMigratable {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func phasesOf(m *kubevirtv1.VirtualMachineInstanceMigration) []kubevirtv1.VirtualMachineInstanceMigrationPhase {
	var out []kubevirtv1.VirtualMachineInstanceMigrationPhase
	for _, p := range m.Status.PhaseTransitionTimestamps {
		out = append(out, p.Phase)
	}
	return out
}

// runningLaunchers counts the VMI's launcher pods that run.
func runningLaunchers(t *testing.T, c crclient.Client, vmi *kubevirtv1.VirtualMachineInstance) int {
	pods := &corev1.PodList{}
	require.NoError(t, c.List(context.Background(), pods, crclient.InNamespace(vmi.Namespace),
		crclient.MatchingLabels{kubevirtv1.CreatedByLabel: string(vmi.UID)}))
	running := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			running++
		}
	}
	return running
}

// uncordon lets pods on node for the test; it is cordoned again after.
func uncordon(t *testing.T, n *upRun, node string) {
	out, err := n.kubectl("uncordon", node).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() {
		if out, err := n.kubectl("cordon", node).CombinedOutput(); err != nil {
			t.Errorf("cordoning %s again: %v: %s", node, err, out)
		}
	})
}

// migrationOf waits for the VirtualMachineInstanceMigration of vm that a
// request made (virtctl, the console), labelled as upstream's mutator does.
func migrationOf(t *testing.T, n *upRun, ns, vm string) *kubevirtv1.VirtualMachineInstanceMigration {
	t.Helper()
	var found *kubevirtv1.VirtualMachineInstanceMigration
	require.Eventually(t, func() bool {
		list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
		if n.c.List(context.Background(), list, crclient.InNamespace(ns), crclient.MatchingLabels{kubevirtv1.MigrationSelectorLabel: vm}) != nil {
			return false
		}
		for i := range list.Items {
			if !list.Items[i].IsFinal() {
				found = &list.Items[i]
				return true
			}
		}
		return false
	}, time.Minute, 200*time.Millisecond, "no migration of %s was created", vm)
	require.Equal(t, vm, found.Spec.VMIName)
	require.Contains(t, found.Finalizers, kubevirtv1.VirtualMachineInstanceMigrationFinalizer)
	return found
}

// requireCancelled waits for a deleted migration to go: its workflow
// settled (the target pod removed), then its finalizer was dropped.
func requireCancelled(t *testing.T, n *upRun, mig *kubevirtv1.VirtualMachineInstanceMigration) {
	t.Helper()
	require.Eventually(t, func() bool {
		err := n.c.Get(context.Background(), crclient.ObjectKeyFromObject(mig), &kubevirtv1.VirtualMachineInstanceMigration{})
		return apierrors.IsNotFound(err)
	}, 2*time.Minute, 200*time.Millisecond, "the cancelled migration %s never went", mig.Name)
	pods := &corev1.PodList{}
	require.NoError(t, n.c.List(context.Background(), pods, crclient.InNamespace(mig.Namespace),
		crclient.MatchingLabels{kubevirtv1.MigrationJobLabel: string(mig.UID)}))
	for _, p := range pods.Items {
		require.NotNil(t, p.DeletionTimestamp, "the target pod %s goes with the migration", p.Name)
	}
}

// onlyDaemonSetsOn fails unless every pod left on node belongs to a
// DaemonSet: a drained node.
func onlyDaemonSetsOn(t *testing.T, n *upRun, node string) {
	t.Helper()
	pods := &corev1.PodList{}
	require.NoError(t, n.c.List(context.Background(), pods, crclient.MatchingFields{"spec.nodeName": node}))
	for _, p := range pods.Items {
		owner := metav1.GetControllerOf(&p)
		require.True(t, owner != nil && owner.Kind == "DaemonSet", "pod %s/%s is still on the drained node", p.Namespace, p.Name)
	}
}

// keptThroughADrain fails unless name runs two Ready pods under a
// disruption budget that keeps one: what lets a drain move it without a
// moment of none.
func keptThroughADrain(t *testing.T, n *upRun, name string) {
	t.Helper()
	require.Eventually(t, func() bool {
		d := &appsv1.Deployment{}
		err := n.c.Get(context.Background(), crclient.ObjectKey{Namespace: platform.Namespace, Name: name}, d)
		return err == nil && d.Status.ReadyReplicas == 2
	}, 2*time.Minute, time.Second, "%s does not run two Ready pods on two nodes", name)
	pdb := &policyv1.PodDisruptionBudget{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKey{Namespace: platform.Namespace, Name: name + "-pdb"}, pdb))
	require.Equal(t, 1, pdb.Spec.MinAvailable.IntValue())
}

// TestADrainMovesALiveMigrateGuestOffItsNode drains the first node, all of
// it, platform pods included, with a guest of evictionStrategy LiveMigrate
// on it: the eviction is refused with upstream's 429 while an evacuation
// migration moves the guest, and `kubectl drain` completes once its
// launcher pod is gone, the guest running on the second node. The node
// registry stays (a DaemonSet), so the target pod pulls its disk; virt-api
// moves one pod at a time under its disruption budget, so the eviction
// webhook answers throughout.
func TestADrainMovesALiveMigrateGuestOffItsNode(t *testing.T) {
	n := onTwoNodes(t)
	ctx := context.Background()
	ns := n.namespace(t)
	vm := testGuestVM("drained", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	strategy := kubevirtv1.EvictionStrategyLiveMigrate
	vm.Spec.Template.Spec.EvictionStrategy = &strategy
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	vmi := runningVMI(t, n.c, key)
	require.Equal(t, "virtflow-node-1", vmi.Status.NodeName)
	require.Eventually(t, func() bool { return liveMigratable(n.c, key) }, time.Minute, time.Second)

	keptThroughADrain(t, n, "virt-api")
	keptThroughADrain(t, n, "virt-controller")
	uncordon(t, n, "virtflow-node-2")
	t.Cleanup(func() {
		if out, err := n.kubectl("uncordon", "virtflow-node-1").CombinedOutput(); err != nil {
			t.Errorf("uncordoning the first node: %v: %s", err, out)
		}
	})
	out, err := n.kubectl("drain", "virtflow-node-1", "--ignore-daemonsets", "--delete-emptydir-data",
		"--timeout", "8m").CombinedOutput()
	require.NoError(t, err, "%s", out)
	onlyDaemonSetsOn(t, n, "virtflow-node-1")
	require.Contains(t, string(out), `Eviction triggered evacuation of VMI "`+ns+`/drained"`, "upstream's refusal, which drain retries")

	require.NoError(t, n.c.Get(ctx, key, vmi))
	require.Equal(t, "virtflow-node-2", vmi.Status.NodeName)
	require.Equal(t, kubevirtv1.Running, vmi.Status.Phase)
	require.Empty(t, vmi.Status.EvacuationNodeName, "cleared once the guest moved")
	list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	require.NoError(t, n.c.List(ctx, list, crclient.InNamespace(ns)))
	require.Len(t, list.Items, 1)
	require.True(t, strings.HasPrefix(list.Items[0].Name, "kubevirt-evacuation-"))
	require.Equal(t, kubevirtv1.MigrationSucceeded, list.Items[0].Status.Phase)
}
