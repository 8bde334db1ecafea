package virt

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/virt"
)

// settle ends a migration that failed or was cancelled after planning. It
// runs in a disconnected context, so a cancellation cannot stop it half
// way: it aborts a copy still running, then reads what both nodes run and
// keeps that copy.
func (m *migration) settle(ctx workflow.Context, cause error) (virt.MigrateResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	control := workflow.WithActivityOptions(dctx, controlOptions())
	if m.copying {
		// An abort that finds nothing to abort is fine: the copy ended.
		_ = virt.AbortMigration.Execute(workflow.WithActivityOptions(dctx, nodeOptions(m.req.Plan.Source.Node, abortTimeout)), m.req)
	}
	copies, err := m.readCopies(dctx)
	if err != nil {
		return virt.MigrateResult{}, err
	}
	failed := virt.MigrateResult{Phase: virt.PhaseFailed, Reason: reasonOf(cause)}
	switch {
	case copies.Target == virt.CopyRunning && copies.Source != virt.CopyRunning:
		// The guest already moved; it cannot be taken back.
		if err := virt.HandOver.Execute(control, m.req); err != nil {
			return virt.MigrateResult{}, err
		}
		return m.end(dctx, virt.MigrateResult{Phase: virt.PhaseSucceeded, TargetNode: m.req.Target.Node}, true)
	case copies.Source == virt.CopyPaused && copies.Target != virt.CopyRunning:
		// The copy stopped the source and the target never started.
		if err := virt.ResumeSource.Execute(workflow.WithActivityOptions(dctx, nodeOptions(m.req.Plan.Source.Node, abortTimeout)), m.req); err != nil {
			return virt.MigrateResult{}, err
		}
	case copies.Source == virt.CopyGone && copies.Target != virt.CopyRunning:
		// No copy runs anywhere: keep the target pod for what it holds
		// and say so, rather than remove the last trace of the guest.
		failed.Reason += "; no copy of the guest runs on either node"
		return m.endFailed(dctx, failed, cause)
	}
	if m.req.Target.Pod != "" || m.creating {
		// A create the cancellation interrupted left no name here; the
		// step finds the pod by the migration it belongs to.
		if err := virt.RemoveTarget.Execute(control, m.req); err != nil {
			return virt.MigrateResult{}, err
		}
	}
	return m.endFailed(dctx, failed, cause)
}

// refused ends a migration that never started: its plan was refused,
// failed, or cancelled. The end is recorded even when cancelled, since the
// plan may have written the migration's start on the VMI.
func (m *migration) refused(ctx workflow.Context, cause error) (virt.MigrateResult, error) {
	res := virt.MigrateResult{Phase: virt.PhaseFailed, Reason: reasonOf(cause)}
	if !m.settlesSteps {
		return m.end(ctx, res, false)
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	return m.endFailed(dctx, res, cause)
}

// endFailed records a migration that did not move the guest. A cancelled
// one then ends cancelled, as the Web UI should show it; a failed one
// completes with its failure in the result, which the VMIM shows.
func (m *migration) endFailed(ctx workflow.Context, res virt.MigrateResult, cause error) (virt.MigrateResult, error) {
	res, err := m.end(ctx, res, false)
	if err == nil && temporal.IsCanceledError(cause) {
		err = cause
	}
	return res, err
}

// readCopies asks each node what it runs. A target that never got a node
// has nothing.
func (m *migration) readCopies(ctx workflow.Context) (virt.Copies, error) {
	source, err := virt.ReadCopy.Execute(workflow.WithActivityOptions(ctx, readOptions(m.req.Plan.Source.Node)), m.req)
	if err != nil {
		return virt.Copies{}, err
	}
	copies := virt.Copies{Source: source, Target: virt.CopyGone}
	if m.req.Target.Node != "" {
		if copies.Target, err = virt.ReadCopy.Execute(workflow.WithActivityOptions(ctx, readOptions(m.req.Target.Node)), m.req); err != nil {
			return virt.Copies{}, err
		}
	}
	return copies, nil
}
