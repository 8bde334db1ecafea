//go:build integration

package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/virtctl"
)

// assistBudgetSeconds is the assisted copies' completion timeout per
// started GB of guest memory: the test guest has 256 MiB, so its copy
// gets this long before the monitor steps in, twice this once paused.
const assistBudgetSeconds = 40

// dirtyInPlace has the guest rewrite 8 MiB of random data in place, in a
// loop: faster than the 2 MiB/s cap moves it, so its copy never converges
// by itself, and the same pages each time, so it ends quickly once the
// guest is paused or the target runs it.
const dirtyInPlace = "[ -e /tmp/dirtying ] || { touch /tmp/dirtying; dd if=/dev/urandom of=/tmp/r bs=1048576 count=8 2>/dev/null; " +
	"(while :; do dd if=/tmp/r of=/tmp/w bs=1048576 conv=notrunc 2>/dev/null; done) & }; echo DIRTYING-$((1+1))"

// TestAMigrationPastItsBudgetIsAssistedToItsEnd migrates a guest that
// dirties its memory faster than its copy moves it, past its completion
// budget: where the policy allows only workload disruption, the monitor
// pauses the guest (upstream's Paused mode) and the copy ends; back, where
// it allows post-copy too, the copy switches to post-copy (upstream's
// PostCopy mode: the target runs the guest and pulls the pages it still
// lacks). Both succeed; the guest counts on where it arrives, running.
func TestAMigrationPastItsBudgetIsAssistedToItsEnd(t *testing.T) {
	n := onTwoNodes(t)
	ctx := context.Background()
	ns := n.namespace(t)
	policy := assistPolicy(t, n, ns)
	vm, _ := policyGuest(t, n, ns, "assisted")
	key := crclient.ObjectKeyFromObject(vm)
	startCounter(t, n, key)
	console, err := virtctl.OpenStream(ctx, n.cfg, ns, vm.Name, "console")
	require.NoError(t, err)
	require.True(t, guestSays(console, dirtyInPlace, "DIRTYING-2", time.Minute), "the guest never started dirtying")
	console.Close()
	uncordon(t, n, "virtflow-node-2")

	assisted(t, n, key, "paused", "virtflow-node-2", kubevirtv1.MigrationPaused)

	policy.Spec.AllowPostCopy = ptr.To(true)
	require.NoError(t, n.c.Update(ctx, policy))
	assisted(t, n, key, "postcopy", "virtflow-node-1", kubevirtv1.MigrationPostCopy)
}

// assisted migrates the guest to node and checks that its copy ended in
// mode, and the guest counts on there, running, not paused.
func assisted(t *testing.T, n *upRun, key crclient.ObjectKey, name, node string, mode kubevirtv1.MigrationMode) {
	ctx := context.Background()
	vmi := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, n.c.Get(ctx, key, vmi))
	counted := lastCount(serialLogOn(t, n, key, vmi.Status.NodeName))
	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: name},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: key.Name}}
	require.NoError(t, n.c.Create(ctx, mig))
	start := time.Now()
	require.Eventually(t, func() bool {
		return n.c.Get(ctx, crclient.ObjectKeyFromObject(mig), mig) == nil && mig.IsFinal()
	}, 2*assistBudgetSeconds*time.Second+3*time.Minute, 200*time.Millisecond, "migration %s never ended", name)
	t.Logf("migration %s ended in %s", name, time.Since(start))
	require.Equal(t, kubevirtv1.MigrationSucceeded, mig.Status.Phase, "%+v", mig.Status.MigrationState)
	require.NoError(t, n.c.Get(ctx, key, vmi))
	st := vmi.Status.MigrationState
	require.Equal(t, mode, st.Mode, "the monitor stepped in past the budget")
	require.True(t, st.Completed)
	require.Equal(t, node, vmi.Status.NodeName)
	requireCountsOn(t, n, key, node, counted)
	require.Eventually(t, func() bool {
		return n.c.Get(ctx, key, vmi) == nil && vmiCondition(vmi, kubevirtv1.VirtualMachineInstancePaused) == nil &&
			vmiCondition(vmi, kubevirtv1.VirtualMachineInstanceReady) != nil &&
			vmiCondition(vmi, kubevirtv1.VirtualMachineInstanceReady).Status == corev1.ConditionTrue
	}, time.Minute, time.Second, "the guest runs on %s, not paused: %+v", node, vmi.Status.Conditions)
}

// assistPolicy makes the MigrationPolicy of the namespace's guests
// labelled migration=<namespace>: a 2 MiB/s cap, the completion budget
// above and workload disruption allowed; post-copy not (yet).
func assistPolicy(t *testing.T, n *upRun, ns string) *migrationsv1alpha1.MigrationPolicy {
	perGiB := int64(assistBudgetSeconds)
	bw := resource.MustParse("2Mi")
	return namespacePolicy(t, n, "assist-"+ns, ns, migrationsv1alpha1.MigrationPolicySpec{BandwidthPerMigration: &bw,
		CompletionTimeoutPerGiB: &perGiB, AllowWorkloadDisruption: ptr.To(true), AllowPostCopy: ptr.To(false)})
}

// vmiCondition is the VMI's condition of type typ, nil without one.
func vmiCondition(vmi *kubevirtv1.VirtualMachineInstance, typ kubevirtv1.VirtualMachineInstanceConditionType) *kubevirtv1.VirtualMachineInstanceCondition {
	for i := range vmi.Status.Conditions {
		if vmi.Status.Conditions[i].Type == typ {
			return &vmi.Status.Conditions[i]
		}
	}
	return nil
}
