//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/virtctl"
)

// dirtyBandwidth caps the dirtying guest's copy below what it rewrites:
// its loop (dirtyInPlace, the assisted-migration test's) rewrites 8 MiB of
// random data in place at 4 to 15 MB/s under TCG on this host, measured
// with libvirt's dirty-rate sampling.
const dirtyBandwidth = "2Mi"

// dirtyBudgetSeconds is the completion timeout per GiB: the test guest
// counts as one, so the copy may last this long (the first pass of its
// memory at the cap takes about 50 s).
const dirtyBudgetSeconds = 90

// dirtyOutcome is how a dirtying guest's migration ended.
type dirtyOutcome struct {
	wall   time.Duration
	phase  kubevirtv1.VirtualMachineInstanceMigrationPhase
	reason string
	mode   kubevirtv1.MigrationMode
}

// dirtyRows migrate a guest that dirties memory faster than its copy
// moves, with the same cap and completion timeout: with auto-converge,
// with the guest paused past the timeout (allowWorkloadDisruption
// without post-copy), and, the baseline of both, with neither.
func (u *upRun) dirtyRows(t *testing.T, ns string) []benchRow {
	plain := u.dirtyMigration(t, ns, "plain", dirtyRemedy{})
	converge := u.dirtyMigration(t, ns, "converge", dirtyRemedy{autoConverge: true})
	pause := u.dirtyMigration(t, ns, "pause", dirtyRemedy{disruption: true})
	what := fmt.Sprintf("guest rewriting 8 MiB in place, %s/s cap, %d s timeout", dirtyBandwidth, dirtyBudgetSeconds)
	base := fmt.Sprintf("baseline: the same without either: %s (%s)", plain.phase, plain.reason)
	return []benchRow{
		{name: what + ", auto-converge: VMIM → end", ours: converge.wall, baseline: plain.wall,
			note: fmt.Sprintf("%s (%s); %s", converge.phase, converge.reason, base)},
		{name: what + ", paused past the timeout: VMIM → end", ours: pause.wall, baseline: plain.wall,
			note: fmt.Sprintf("%s, mode %s; %s", pause.phase, pause.mode, base)},
	}
}

// dirtyRemedy is what a dirtying guest's policy allows.
type dirtyRemedy struct{ autoConverge, disruption bool }

// dirtyMigration runs one dirtying guest on the first node under a
// policy of its own and migrates it to the second.
func (u *upRun) dirtyMigration(t *testing.T, ns, name string, r dirtyRemedy) dirtyOutcome {
	ctx := context.Background()
	bw := resource.MustParse(dirtyBandwidth)
	perGiB := int64(dirtyBudgetSeconds)
	p := &migrationsv1alpha1.MigrationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "dirty-" + name},
		Spec: migrationsv1alpha1.MigrationPolicySpec{BandwidthPerMigration: &bw, CompletionTimeoutPerGiB: &perGiB, AllowAutoConverge: &r.autoConverge,
			AllowWorkloadDisruption: &r.disruption, AllowPostCopy: ptr.To(false),
			Selectors: &migrationsv1alpha1.Selectors{VirtualMachineInstanceSelector: migrationsv1alpha1.LabelSelector{"dirty": name}}}}
	require.NoError(t, u.c.Create(ctx, p))
	defer func() { _ = u.c.Delete(ctx, p) }()
	u.cordon(t, "virtflow-node-2")
	vm := testGuestVM("dirty-"+name, kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	vm.Spec.Template.ObjectMeta.Labels = map[string]string{"dirty": name}
	require.NoError(t, u.c.Create(ctx, vm))
	defer deleteVM(t, u.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	runningVMI(t, u.c, key)
	require.Eventually(t, func() bool { return liveMigratable(u.c, key) }, time.Minute, time.Second)
	console, err := virtctl.OpenStream(ctx, u.cfg, ns, vm.Name, "console")
	require.NoError(t, err)
	require.True(t, guestSays(console, dirtyInPlace, "DIRTYING-2", 3*time.Minute), "the guest never started dirtying")
	console.Close()
	u.uncordon(t, "virtflow-node-2")

	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dirty-" + name},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vm.Name}}
	start := time.Now()
	require.NoError(t, u.c.Create(ctx, mig))
	require.Eventually(t, func() bool {
		return u.c.Get(ctx, crclient.ObjectKeyFromObject(mig), mig) == nil && mig.IsFinal()
	}, 2*dirtyBudgetSeconds*time.Second+3*time.Minute, 100*time.Millisecond)
	out := dirtyOutcome{wall: time.Since(start), phase: mig.Status.Phase}
	if st := mig.Status.MigrationState; st != nil {
		out.reason, out.mode = st.FailureReason, st.Mode
	}
	return out
}
