// Package virt orchestrates KubeVirt's long-running operations: a live
// migration is a workflow that ends with exactly one running copy of the
// VMI, deciding from what both nodes report, never from what it
// remembers, before it removes anything.
package virt

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/virt"
)

// MigrateVirtualMachineInstance moves the VMI live to another node:
// plan, target pod scheduled by the scheduler, target prepared, copy,
// hand-over. Whatever fails or is cancelled, the copies both nodes report
// decide the end: a guest that reached the target stays there; otherwise
// the source keeps it (resumed if the copy left it paused) and the target
// goes.
func MigrateVirtualMachineInstance(ctx workflow.Context, in virt.MigrateInput) (virt.MigrateResult, error) {
	m := &migration{req: virt.NodeRequest{Migration: in.Migration, VMI: in.VMI}}
	m.settlesSteps = workflow.GetVersion(ctx, settledStepsChange, workflow.DefaultVersion, 1) >= 1
	m.startRelay(ctx)
	if err := m.phase(ctx, virt.PhasePending); err != nil {
		return virt.MigrateResult{}, err
	}
	plan, err := virt.PlanMigration.Execute(m.controlCtx(ctx), in)
	if err != nil {
		// Nothing was started: the VMI stays where it is, untouched.
		return m.refused(ctx, err)
	}
	m.req.Plan = plan
	err = m.run(ctx)
	if err == nil {
		return m.end(ctx, virt.MigrateResult{Phase: virt.PhaseSucceeded, TargetNode: m.req.Target.Node}, true)
	}
	return m.settle(ctx, err)
}

// migration is one run's state: the request its steps share.
type migration struct {
	req virt.NodeRequest
	// creating is set once the target pod's creation was asked for: a
	// cancellation can end the step before its name comes back.
	creating bool
	// copying is set once the source was told to copy.
	copying bool
	// settlesSteps is false in runs started before a cancellation waited
	// for the control step it interrupted; they replay as they ran.
	settlesSteps bool
	// progress is the memo as last published: the phase, every phase
	// so far, and the copy's counters while it runs.
	progress virt.Progress
	// inCopy is set while the copy step runs: only then are the
	// source's reports shown.
	inCopy bool
	// relaying says the run relays the source's reports.
	relaying bool
	// runningOnReport says the source's first report publishes Running.
	runningOnReport bool
}

// run takes the migration from scheduling to the target running.
func (m *migration) run(ctx workflow.Context) error {
	if err := m.phase(ctx, virt.PhaseScheduling); err != nil {
		return err
	}
	m.creating = m.settlesSteps
	pod, err := virt.CreateTargetPod.Execute(m.controlCtx(ctx), m.req)
	if err != nil {
		return err
	}
	m.req.Target.Pod = pod
	node, err := virt.AwaitTargetPod.Execute(workflow.WithActivityOptions(ctx, awaitOptions()), m.req)
	if err != nil {
		return err
	}
	m.req.Target.Node = node
	for _, p := range []string{virt.PhaseScheduled, virt.PhasePreparingTarget} {
		if err := m.phase(ctx, p); err != nil {
			return err
		}
	}
	if m.req.Endpoint, err = virt.PrepareTarget.Execute(workflow.WithActivityOptions(ctx, nodeOptions(node, prepareTimeout)), m.req); err != nil {
		return err
	}
	if err := m.targetReady(ctx); err != nil {
		return err
	}
	m.copying, m.inCopy = true, true
	err = virt.MigrateDomain.Execute(workflow.WithActivityOptions(ctx, nodeOptions(m.req.Plan.Source.Node, copyTimeout)), m.req)
	m.inCopy = false
	if err != nil {
		return err
	}
	if m.progress.Phase == virt.PhaseTargetReady {
		// The copy ended before the source's first report arrived.
		if err := m.phase(ctx, virt.PhaseRunning); err != nil {
			return err
		}
	}
	return m.handOverIfMoved(ctx)
}

// runningWhenCopyStartsChange versions Running as upstream has it: the
// source started the copy (its first report), not the copy asked for.
// Runs recorded before it published TargetReady and Running together.
const runningWhenCopyStartsChange = "migration-running-when-copy-starts"

// targetReady publishes TargetReady and, in runs before
// runningWhenCopyStartsChange or without a relay to hear the source's
// reports (started before it), Running with it. A copy that fails before
// its first report goes from TargetReady to Failed: nothing said it ran.
func (m *migration) targetReady(ctx workflow.Context) error {
	v := workflow.GetVersion(ctx, runningWhenCopyStartsChange, workflow.DefaultVersion, 1)
	m.runningOnReport = v >= 1 && m.relaying
	if err := m.phase(ctx, virt.PhaseTargetReady); err != nil {
		return err
	}
	if m.runningOnReport {
		return nil
	}
	return m.phase(ctx, virt.PhaseRunning)
}

// handOverIfMoved hands the VMI to the target once both nodes say the
// guest runs there.
func (m *migration) handOverIfMoved(ctx workflow.Context) error {
	copies, err := m.readCopies(ctx)
	if err != nil {
		return err
	}
	if copies.Target != virt.CopyRunning {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the copy ended but the target does not run the guest (source %s, target %s)", copies.Source, copies.Target),
			virt.ErrTypeMigrationFailed, nil)
	}
	return virt.HandOver.Execute(m.controlCtx(ctx), m.req)
}

// phase publishes the VMIM's phase in the workflow's memo; the copy's
// counters of an earlier phase go.
func (m *migration) phase(ctx workflow.Context, phase string) error {
	m.enter(ctx, phase)
	return m.publish(ctx)
}

// enter records phase as the current one, unpublished.
func (m *migration) enter(ctx workflow.Context, phase string) {
	transitions := append(m.progress.Transitions, virt.Transition{Phase: phase, At: workflow.Now(ctx).UTC()})
	m.progress = virt.Progress{Phase: phase, Transitions: transitions}
}

// end publishes the outcome; recorded says the VMI's status already holds
// it (a hand-over writes it).
func (m *migration) end(ctx workflow.Context, res virt.MigrateResult, recorded bool) (virt.MigrateResult, error) {
	if !recorded {
		if err := virt.RecordMigrationEnd.Execute(workflow.WithActivityOptions(ctx, controlOptions()), m.req, res); err != nil {
			return res, err
		}
	}
	return res, m.phase(ctx, res.Phase)
}

// reasonOf is a failure's message for the VMIM's status.
func reasonOf(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return "the migration was cancelled"
	}
	return err.Error()
}
