package migration

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

func TestMigrationsAreCountedByPhaseAndFinalOnesMarked(t *testing.T) {
	m := func(name string, phase kubevirtv1.VirtualMachineInstanceMigrationPhase) crclient.Object {
		return &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: "vm-" + name}, Status: kubevirtv1.VirtualMachineInstanceMigrationStatus{Phase: phase}}
	}
	_, _, c := world(t, m("a", kubevirtv1.MigrationPending), m("b", kubevirtv1.MigrationPreparingTarget), m("c", kubevirtv1.MigrationRunning),
		m("d", kubevirtv1.MigrationSucceeded), m("e", kubevirtv1.MigrationFailed), m("f", ""))
	want := `
# HELP kubevirt_vmi_migration_failed Indicates if the VMI migration failed.
# TYPE kubevirt_vmi_migration_failed gauge
kubevirt_vmi_migration_failed{namespace="ns",vmi="vm-e",vmim="e"} 1
# HELP kubevirt_vmi_migration_succeeded Indicates if the VMI migration succeeded.
# TYPE kubevirt_vmi_migration_succeeded gauge
kubevirt_vmi_migration_succeeded{namespace="ns",vmi="vm-d",vmim="d"} 1
# HELP kubevirt_vmi_migrations_in_pending_phase Number of current pending migrations.
# TYPE kubevirt_vmi_migrations_in_pending_phase gauge
kubevirt_vmi_migrations_in_pending_phase 1
# HELP kubevirt_vmi_migrations_in_running_phase Number of current running migrations.
# TYPE kubevirt_vmi_migrations_in_running_phase gauge
kubevirt_vmi_migrations_in_running_phase 2
# HELP kubevirt_vmi_migrations_in_scheduling_phase Number of current scheduling migrations.
# TYPE kubevirt_vmi_migrations_in_scheduling_phase gauge
kubevirt_vmi_migrations_in_scheduling_phase 0
# HELP kubevirt_vmi_migrations_in_unset_phase Number of current unset migrations. These are pending items the virt-controller hasn’t processed yet from the queue.
# TYPE kubevirt_vmi_migrations_in_unset_phase gauge
kubevirt_vmi_migrations_in_unset_phase 1
`
	require.NoError(t, testutil.CollectAndCompare(Collector{Reader: c}, strings.NewReader(want),
		"kubevirt_vmi_migration_failed", "kubevirt_vmi_migration_succeeded", "kubevirt_vmi_migrations_in_pending_phase",
		"kubevirt_vmi_migrations_in_running_phase", "kubevirt_vmi_migrations_in_scheduling_phase", "kubevirt_vmi_migrations_in_unset_phase"))
}
