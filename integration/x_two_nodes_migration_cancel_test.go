//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/wire/launcherpod"
)

// TestAMigrationCancelledMidwayLeavesTheGuestOnItsSource slows a
// migration with a MigrationPolicy's bandwidth, sees that bandwidth set on
// the source domain's migration, cancels the migration while the memory
// is copied, and finds the guest on its source, in the same launcher,
// still counting and answering on its address, the target gone.
func TestAMigrationCancelledMidwayLeavesTheGuestOnItsSource(t *testing.T) {
	n := onTwoNodes(t)
	ctx := context.Background()
	ns := n.namespace(t)
	policy := slowPolicy(t, n, ns)
	vm, vmi := policyGuest(t, n, ns, "stayer")
	key := crclient.ObjectKeyFromObject(vm)
	source := launcherOn(t, n, key, "virtflow-node-1")
	startCounter(t, n, key)
	ip := vmiAddress(t, n, key)

	uncordon(t, n, "virtflow-node-2")
	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "slow"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vm.Name}}
	require.NoError(t, n.c.Create(ctx, mig))
	awaitMigrationPhase(t, n, mig, kubevirtv1.MigrationRunning)
	// Running says the source's libvirt job started, and libvirt sets the
	// cap as it starts; the read waits for the first look that shows it.
	var bw int64
	require.Eventually(t, func() bool {
		bw = migrationBandwidth(n, ns, source.Name, vm.Name)
		return bw == 1<<20
	}, 30*time.Second, 200*time.Millisecond, "the policy's 1Mi per migration caps the copy (max-bandwidth %d)", bw)
	require.NoError(t, n.c.Get(ctx, key, vmi))
	st := vmi.Status.MigrationState
	require.NotNil(t, st.MigrationPolicyName)
	require.Equal(t, policy, *st.MigrationPolicyName)
	require.Equal(t, "1Mi", st.VMIMConfigurationOptions.BandwidthPerMigration.String(), "migrationState records the configuration")

	counted := lastCount(serialLogOn(t, n, key, "virtflow-node-1"))
	require.NoError(t, n.c.Delete(ctx, mig), "deleting the migration cancels it")
	requireCancelled(t, n, mig)

	require.NoError(t, n.c.Get(ctx, key, vmi))
	require.Equal(t, "virtflow-node-1", vmi.Status.NodeName, "the guest stays on its source")
	require.Equal(t, kubevirtv1.Running, vmi.Status.Phase)
	require.True(t, vmi.Status.MigrationState.Failed, "%+v", vmi.Status.MigrationState)
	require.False(t, vmi.Status.MigrationState.Completed)
	require.Eventually(t, func() bool { return runningLaunchers(t, n.c, vmi) == 1 }, time.Minute, time.Second, "the target's launcher went")
	require.Equal(t, source.UID, launcherOn(t, n, key, "virtflow-node-1").UID, "the same launcher runs the guest")
	require.Equal(t, "VIRTFLOW-GUEST-HTTP stayer", strings.TrimSpace(httpGet(t, "http://"+ip+"/")), "the guest answers on its address")
	require.Eventually(t, func() bool { return lastCount(serialLogOn(t, n, key, "virtflow-node-1")) > counted+2 }, time.Minute, time.Second,
		"the guest counts on where it was")
}

// slowPolicy makes a MigrationPolicy for the namespace's guests labelled
// migration=<namespace>, which copies at 1 MiB/s: a migration of the test
// guest then lasts long enough to be cancelled while it copies. The
// completion timeout is raised so the copy is not ended for its length.
func slowPolicy(t *testing.T, n *upRun, ns string) string {
	perGiB := int64(3600)
	bw := resource.MustParse("1Mi")
	return namespacePolicy(t, n, "slow-"+ns, ns, migrationsv1alpha1.MigrationPolicySpec{BandwidthPerMigration: &bw, CompletionTimeoutPerGiB: &perGiB}).Name
}

// policyGuest runs the test guest name labelled for the namespace's
// policy on the first node, migratable, and deletes it after the test.
func policyGuest(t *testing.T, n *upRun, ns, name string) (*kubevirtv1.VirtualMachine, *kubevirtv1.VirtualMachineInstance) {
	return migratableGuest(t, n, ns, name, map[string]string{"migration": ns})
}

// migratableGuest runs the test guest name, with labels, on the first
// node until it may migrate, and deletes it after the test (a cleanup,
// not a defer: a launcher a test stopped is resumed by a later cleanup,
// which runs first).
func migratableGuest(t *testing.T, n *upRun, ns, name string, labels map[string]string) (*kubevirtv1.VirtualMachine, *kubevirtv1.VirtualMachineInstance) {
	vm := testGuestVM(name, kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	vm.Spec.Template.ObjectMeta.Labels = labels
	require.NoError(t, n.c.Create(context.Background(), vm))
	t.Cleanup(func() { deleteVM(t, n.c, vm) })
	key := crclient.ObjectKeyFromObject(vm)
	vmi := runningVMI(t, n.c, key)
	require.Equal(t, "virtflow-node-1", vmi.Status.NodeName)
	require.Eventually(t, func() bool { return liveMigratable(n.c, key) }, time.Minute, time.Second)
	return vm, vmi
}

// namespacePolicy makes the MigrationPolicy name with spec for the
// namespace's guests labelled migration=<namespace>; it goes after the
// test.
func namespacePolicy(t *testing.T, n *upRun, name, ns string, spec migrationsv1alpha1.MigrationPolicySpec) *migrationsv1alpha1.MigrationPolicy {
	spec.Selectors = &migrationsv1alpha1.Selectors{VirtualMachineInstanceSelector: migrationsv1alpha1.LabelSelector{"migration": ns}}
	p := &migrationsv1alpha1.MigrationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	require.NoError(t, n.c.Create(context.Background(), p))
	t.Cleanup(func() {
		if err := n.c.Delete(context.Background(), p); err != nil {
			t.Errorf("deleting migration policy %s: %v", p.Name, err)
		}
	})
	return p
}

// launcherLibvirt is a launcher's libvirt as seen from inside its pod.
var launcherLibvirt = "qemu+unix:///session?socket=" + filepath.Join(launcherpod.SocketsDir, "run", "libvirt", "libvirt-sock")

// migrationBandwidth asks the source's QEMU, through its launcher's
// libvirt, for its migration max-bandwidth in bytes per second; -1 when
// it cannot be read.
func migrationBandwidth(n *upRun, ns, pod, vm string) int64 {
	out, err := n.kubectl("-n", ns, "exec", pod, "-c", "compute", "--", "virsh", "-c", launcherLibvirt,
		"qemu-monitor-command", ns+"_"+vm, `{"execute":"query-migrate-parameters"}`).Output()
	if err != nil {
		return -1
	}
	var reply struct {
		Return struct {
			MaxBandwidth int64 `json:"max-bandwidth"`
		} `json:"return"`
	}
	if json.Unmarshal(out, &reply) != nil {
		return -1
	}
	return reply.Return.MaxBandwidth
}
