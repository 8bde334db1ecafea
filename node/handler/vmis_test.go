package handler

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
)

func finalStatus(t *testing.T, st launcher.Status) launcherRef {
	dir := t.TempDir()
	data, err := json.Marshal(st)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, launcher.StatusFile), data, 0o644))
	return launcherRef{dir: dir, socket: filepath.Join(dir, "none.sock")}
}

// A source launcher ends once its guest left by migrating: the VMI runs
// on, and its agent on this node says nothing of its end.
func TestASourceWhoseGuestMigratedAwayLeavesTheVMIRunning(t *testing.T) {
	r := &vmiReconciler{}
	v := &kubevirtv1.VirtualMachineInstance{Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running}}
	done := r.sync(context.Background(), v, finalStatus(t, launcher.Status{State: libvirt.Shutoff, Exited: true, Reason: launcher.ReasonMigrated}))
	require.True(t, done)
	require.Equal(t, kubevirtv1.Running, v.Status.Phase)
	require.Empty(t, v.Status.Conditions)

	// Any other end is the guest's.
	done = r.sync(context.Background(), v, finalStatus(t, launcher.Status{State: libvirt.Shutoff, Exited: true}))
	require.True(t, done)
	require.Equal(t, kubevirtv1.Succeeded, v.Status.Phase)
}

// While a migration from this node is in flight, a source whose domain is
// gone is the workflow's to judge, from both nodes: the VMI is not ended
// here, which would have its VM remove the copy on the target.
func TestAGoneSourceDuringAMigrationLeavesTheVMIToTheMigration(t *testing.T) {
	r := &vmiReconciler{cfg: Config{NodeName: "node-1"}}
	started := metav1.Now()
	v := &kubevirtv1.VirtualMachineInstance{Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running,
		MigrationState: &kubevirtv1.VirtualMachineInstanceMigrationState{SourceNode: "node-1", StartTimestamp: &started}}}
	gone := launcher.Status{State: libvirt.Shutoff, Exited: true}
	require.True(t, r.sync(context.Background(), v, finalStatus(t, gone)))
	require.Equal(t, kubevirtv1.Running, v.Status.Phase)

	v.Status.MigrationState.Failed = true
	r.sync(context.Background(), v, finalStatus(t, gone))
	require.Equal(t, kubevirtv1.Succeeded, v.Status.Phase, "once the migration recorded its end, the guest's end is the VMI's")
}
