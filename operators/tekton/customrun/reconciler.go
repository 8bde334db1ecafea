// Package customrun is the controller of the durable Tekton tasks: a
// PipelineTask whose taskRef is {apiVersion: tasks.virtflow.io/v1alpha1,
// kind: DurableTask, name: <task>} makes Tekton create a CustomRun, which
// this controller runs as a Temporal workflow (the task's code as one
// activity, acting as the CustomRun's service account) and reports back on
// as Tekton expects of a custom task: start time, a Succeeded condition,
// results, cancellation and timeout.
package customrun

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Finalizer keeps a running CustomRun until its workflow has stopped (and
// a pipeline has cleaned up its VM).
const Finalizer = "tasks.virtflow.io/durable-task"

// Reconciler runs durable tasks' CustomRuns as workflows. It is the only
// writer of their status.
type Reconciler struct {
	Client   crclient.Client
	Temporal workflowstate.Client
	Recorder record.EventRecorder
	// TaskQueue is where the workflows run; ssp.TaskQueue when empty.
	TaskQueue string
	// Now replaces time.Now (tests).
	Now func() time.Time
	// watcher wakes a CustomRun when its workflow moves on; SetupWithManager
	// starts it.
	watcher *workflowstate.Watcher
}

// Reconcile runs the workflow-backed lifecycle for a durable task's
// CustomRun: a run that is cancelled or times out has its workflow
// cancelled, and a finished one lets its finalizer go.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.lifecycle().Reconcile(ctx, req)
}

// attempt is what one reconcile knows of a run: its spec and status, why
// it is being stopped (empty while it runs on), why it cannot run at all,
// and its workflow's progress.
type attempt struct {
	run       run
	stop, why string
	invalid   error
	progress  ssp.Progress
}

func (r *Reconciler) lifecycle() workflowreconcile.Lifecycle[*unstructured.Unstructured, attempt] {
	return workflowreconcile.Lifecycle[*unstructured.Unstructured, attempt]{
		Objects:    r.objects(),
		Workflows:  r.workflows(),
		New:        newObject,
		Accept:     r.accept,
		WorkflowID: func(u *unstructured.Unstructured) string { return ssp.TaskWorkflowID(string(u.GetUID())) },
		Prepare:    r.prepare,
		MemoKey:    ssp.ProgressMemoKey,
		Progress:   func(a *attempt) any { return &a.progress },
		Start:      startOf,
		Report:     r.report,
	}
}

func (r *Reconciler) workflows() workflowreconcile.Workflows {
	return workflowreconcile.Workflows{Temporal: r.Temporal, Watcher: r.watcher, TaskQueue: cmp.Or(r.TaskQueue, ssp.TaskQueue)}
}

func (r *Reconciler) objects() workflowreconcile.Objects {
	return workflowreconcile.Objects{Client: r.Client, Kind: "CustomRun", Finalizer: Finalizer}
}

// accept acts on durable tasks' runs that have not finished; a finished
// one only lets its finalizer go.
func (r *Reconciler) accept(ctx context.Context, u *unstructured.Unstructured) (bool, error) {
	cr, err := decode(u)
	if err != nil || !cr.ours() {
		return false, err
	}
	if cr.done() {
		return false, r.objects().Release(ctx, u)
	}
	return true, nil
}

// prepare reads the run and whether it is being stopped.
func (r *Reconciler) prepare(_ context.Context, u *unstructured.Unstructured) (attempt, *ctrl.Result, error) {
	cr, err := decode(u)
	if err != nil {
		return attempt{}, nil, err
	}
	stop, why := stopReason(u.GetName(), cr, r.now())
	return attempt{run: cr, stop: stop, why: why}, nil, nil
}

// report writes the run's outcome so far; a final one is recorded and
// lets the finalizer go, a running one is looked at again by its timeout.
func (r *Reconciler) report(ctx context.Context, u *unstructured.Unstructured, a *attempt, wr workflowreconcile.Run) (ctrl.Result, error) {
	o, err := r.next(ctx, u, a, wr)
	if err != nil {
		return ctrl.Result{}, err
	}
	st, err := r.writeStatus(ctx, u, a.run, o)
	if err != nil {
		return ctrl.Result{}, err
	}
	if o.final() {
		r.finished(u, a.run, st, o)
		return ctrl.Result{}, r.objects().Release(ctx, u)
	}
	a.run.Status = st
	return r.requeue(a.run), nil
}

// next is the run's outcome so far, cancelling its workflow when the
// CustomRun asks.
func (r *Reconciler) next(ctx context.Context, u *unstructured.Unstructured, a *attempt, wr workflowreconcile.Run) (outcome, error) {
	switch wr.Phase {
	case workflowstate.NotFound:
		// startOf left it absent: stopped before it started, or unable to run.
		if a.stop == "" && a.invalid != nil {
			return failed(ReasonFailed, a.invalid.Error()), nil
		}
		return failed(a.stop, a.why), nil
	case workflowstate.Running:
		if wr.Started {
			return r.started(u, a.run, wr.ID), nil
		}
		if a.stop == "" {
			return running(progressMessage(cmp.Or(a.progress.Message, "Running "+a.run.Spec.CustomRef.Name), a.progress, wr.State)), nil
		}
		return r.cancel(ctx, u, a.run, wr.ID, a.why)
	case workflowstate.Succeeded:
		return r.succeeded(ctx, a.run, wr.ID, a.progress)
	case workflowstate.Failed:
		if a.stop != "" {
			return failed(a.stop, a.why+": "+wr.Message), nil
		}
		return failed(ReasonFailed, wr.Message), nil
	}
	if a.stop == "" {
		return failed(ReasonCancelled, fmt.Sprintf("CustomRun %q was cancelled: its workflow %s was cancelled in Temporal", u.GetName(), wr.ID)), nil
	}
	return failed(a.stop, a.why), nil
}
