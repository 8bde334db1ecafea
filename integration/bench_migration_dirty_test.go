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
	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/virtctl"
)

// dirtyBandwidth caps the dirtying guest's copy below what it rewrites
// (a TCG guest's cp loop rewrites more than 16 MiB/s only barely).
const dirtyBandwidth = "4Mi"

// dirtyBudgetSeconds is the completion timeout per GiB: the test guest
// counts as one, so the copy may last this long.
const dirtyBudgetSeconds = 240

// dirtyLoop has the guest rewrite 48 MiB of random data in a loop, far
// faster than the cap moves it; the guard keeps a command typed again
// from starting a second loop.
const dirtyLoop = "[ -e /tmp/d ] || { touch /tmp/d; head -c 48M /dev/urandom > /tmp/r; (while :; do cp /tmp/r /tmp/w; done) & }; [ -e /tmp/w ] && echo DIRTY-$((1+1))"

// dirtyOutcome is how a dirtying guest's migration ended.
type dirtyOutcome struct {
	wall   time.Duration
	phase  kubevirtv1.VirtualMachineInstanceMigrationPhase
	reason string
}

// dirtyRow migrates a guest that dirties memory faster than its copy
// moves, with the same cap and completion timeout, once with
// auto-converge and once without.
func (u *upRun) dirtyRow(t *testing.T, ns string) benchRow {
	plain := u.dirtyMigration(t, ns, "plain", false)
	converge := u.dirtyMigration(t, ns, "converge", true)
	return benchRow{name: "guest rewriting 48 MiB in a loop, " + dirtyBandwidth + "/s cap, auto-converge: VMIM → end", ours: converge.wall, baseline: plain.wall,
		note: fmt.Sprintf("with auto-converge %s; baseline: the same guest, cap and %d s completion timeout without it: %s (%s)",
			converge.phase, dirtyBudgetSeconds, plain.phase, plain.reason)}
}

// dirtyMigration runs one dirtying guest on the first node under a
// policy of its own and migrates it to the second.
func (u *upRun) dirtyMigration(t *testing.T, ns, name string, autoConverge bool) dirtyOutcome {
	ctx := context.Background()
	bw := resource.MustParse(dirtyBandwidth)
	perGiB := int64(dirtyBudgetSeconds)
	p := &migrationsv1alpha1.MigrationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "dirty-" + name},
		Spec: migrationsv1alpha1.MigrationPolicySpec{BandwidthPerMigration: &bw, CompletionTimeoutPerGiB: &perGiB, AllowAutoConverge: &autoConverge,
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
	require.True(t, guestSays(console, dirtyLoop, "DIRTY-2", 3*time.Minute), "the guest never started dirtying")
	console.Close()
	u.uncordon(t, "virtflow-node-2")

	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dirty-" + name},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vm.Name}}
	start := time.Now()
	require.NoError(t, u.c.Create(ctx, mig))
	require.Eventually(t, func() bool {
		return u.c.Get(ctx, crclient.ObjectKeyFromObject(mig), mig) == nil && mig.IsFinal()
	}, dirtyBudgetSeconds*time.Second+3*time.Minute, 100*time.Millisecond)
	out := dirtyOutcome{wall: time.Since(start), phase: mig.Status.Phase}
	if st := mig.Status.MigrationState; st != nil {
		out.reason = st.FailureReason
	}
	return out
}
