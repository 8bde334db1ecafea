package handler

import (
	"context"
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/virt"
)

// pausedByMigration is upstream's Paused condition of a source guest the
// migration monitor paused so its copy can end.
const (
	pausedByMigrationReason  = "PausedByMigrationMonitor"
	pausedByMigrationMessage = "VMI was paused by the migration monitor"
)

// copyMode is the mode the VMI records for this migration's copy: empty
// before the copy started.
func (m *Migrations) copyMode(ctx context.Context, req virt.NodeRequest) (kubevirtv1.MigrationMode, error) {
	vmi, err := m.vmi(ctx, req)
	if err != nil {
		return "", err
	}
	if st := vmi.Status.MigrationState; st != nil && string(st.MigrationUID) == req.Migration.UID {
		return st.Mode, nil
	}
	return "", nil
}

// recordMode writes the copy's mode into the VMI's migrationState, as
// upstream's source agent does (PreCopy once the copy started, PostCopy or
// Paused once the monitor switched it), while the state is still this
// migration's and in flight.
func (m *Migrations) recordMode(ctx context.Context, req virt.NodeRequest, mode kubevirtv1.MigrationMode) error {
	vmi, err := m.vmi(ctx, req)
	if err != nil {
		return err
	}
	st := vmi.Status.MigrationState
	if st == nil || string(st.MigrationUID) != req.Migration.UID || st.Completed || st.Failed || st.Mode == mode {
		return nil
	}
	before := vmi.DeepCopy()
	st.Mode = mode
	if err := m.r.c.Status().Patch(ctx, vmi, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("recording migration mode %s of VMI %s: %w", mode, vmi.Name, err)
	}
	return nil
}

// pausedReason is why the guest on node is paused: the monitor of a
// migration still in flight from node paused it, else its user did. A
// source in post-copy is paused because the guest runs on the target:
// no reason, the VMI is not paused.
func pausedReason(v *kubevirtv1.VirtualMachineInstance, node string) (reason, message string) {
	if st := v.Status.MigrationState; migrating(v, node) {
		switch st.Mode {
		case kubevirtv1.MigrationPaused:
			return pausedByMigrationReason, pausedByMigrationMessage
		case kubevirtv1.MigrationPostCopy:
			return "", ""
		}
	}
	return "PausedByUser", "VMI was paused by user"
}
