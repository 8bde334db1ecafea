package workflowreconcile

import (
	"cmp"
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	temporalclient "go.temporal.io/sdk/client"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Workflow is how to start the workflow behind an object.
type Workflow struct {
	// Type is the workflow type's registered name.
	Type string
	// Input is the workflow's one argument.
	Input any
	// ReusePolicy says whether an ID whose run has closed may run again.
	// Unset means never (REJECT_DUPLICATE): an object's workflow runs
	// once, and its closed run's outcome stays the object's for good.
	ReusePolicy enumspb.WorkflowIdReusePolicy
}

// Workflows starts, cancels and watches the workflows behind one kind's
// objects.
type Workflows struct {
	// Temporal describes, starts and cancels executions.
	Temporal workflowstate.Client
	// Watcher wakes an object on its running workflow's next event; nil
	// (as in unit tests) leaves only the resync.
	Watcher *workflowstate.Watcher
	// TaskQueue is where started workflows run.
	TaskQueue string
}

// Ensure starts wf under id unless it already runs. The conflict policy
// use-existing turns a start that races another, or that follows a
// describe which did not see the run yet, into finding the running
// execution rather than an error.
func (w Workflows) Ensure(ctx context.Context, id string, wf Workflow) error {
	opts := temporalclient.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                w.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    cmp.Or(wf.ReusePolicy, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE),
	}
	if _, err := w.Temporal.ExecuteWorkflow(ctx, opts, wf.Type, wf.Input); err != nil {
		return fmt.Errorf("starting workflow %s as %s: %w", wf.Type, id, err)
	}
	return nil
}

// Cancel asks the execution id to stop. It returns at once: the workflow
// unwinds (cleaning up what it made) and its close wakes the watcher.
func (w Workflows) Cancel(ctx context.Context, id string) error {
	if err := w.Temporal.CancelWorkflow(ctx, id, ""); err != nil {
		return fmt.Errorf("cancelling workflow %s: %w", id, err)
	}
	return nil
}

// Watch has the watcher enqueue obj for every event of execution id past
// event after; without a watcher it does nothing.
func (w Workflows) Watch(id string, after int64, obj client.Object) {
	if w.Watcher != nil {
		w.Watcher.Watch(id, after, obj)
	}
}

// Wait leaves obj until its running workflow's next event wakes it, with
// the resync as a safety net for what the watcher cannot see; an
// execution that is not running has nothing to wait for.
func (w Workflows) Wait(id string, state workflowstate.State, obj client.Object) reconcile.Result {
	if state.Phase != workflowstate.Running {
		return reconcile.Result{}
	}
	w.Watch(id, state.HistoryLength, obj)
	return reconcile.Result{RequeueAfter: workflowstate.Resync}
}
