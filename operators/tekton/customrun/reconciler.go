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
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/contracts/ssp"
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

// Reconcile follows the model reconciler: get, ignore what is not ours or
// done, deletion, finalizer, describe, start if absent, cancel when asked
// or timed out, map to status, patch once, requeue while running.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	u := newObject()
	if err := r.Client.Get(ctx, req.NamespacedName, u); err != nil {
		return ctrl.Result{}, crclient.IgnoreNotFound(err)
	}
	cr, err := decode(u)
	if err != nil || !cr.ours() {
		return ctrl.Result{}, err
	}
	id := ssp.TaskWorkflowID(string(u.GetUID()))
	if u.GetDeletionTimestamp() != nil {
		return r.finalize(ctx, u, id)
	}
	if cr.done() {
		return ctrl.Result{}, r.dropFinalizer(ctx, u)
	}
	if controllerutil.AddFinalizer(u, Finalizer) {
		if err := r.Client.Update(ctx, u); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer to CustomRun %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
	}
	var p ssp.Progress
	state, err := workflowstate.Describe(ctx, r.Temporal, id, ssp.ProgressMemoKey, &p)
	if err != nil {
		return ctrl.Result{}, err
	}
	o, err := r.next(ctx, u, cr, id, state, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	st, err := r.writeStatus(ctx, u, cr, o)
	if err != nil {
		return ctrl.Result{}, err
	}
	if o.final() {
		r.finished(u, cr, st, o)
		return ctrl.Result{}, r.dropFinalizer(ctx, u)
	}
	r.watch(id, state, u)
	cr.Status = st
	return r.requeue(cr), nil
}

// next is the run's outcome so far, starting or cancelling its workflow as
// the CustomRun asks.
func (r *Reconciler) next(ctx context.Context, u *unstructured.Unstructured, cr run, id string, state workflowstate.State, p ssp.Progress) (outcome, error) {
	stop, why := stopReason(u.GetName(), cr, r.now())
	switch state.Phase {
	case workflowstate.NotFound:
		if stop != "" {
			return failed(stop, why), nil
		}
		return r.start(ctx, u, cr, id)
	case workflowstate.Running:
		if stop == "" {
			return running(progressMessage(cmp.Or(p.Message, "Running "+cr.Spec.CustomRef.Name), state)), nil
		}
		return r.cancel(ctx, u, cr, id, why)
	case workflowstate.Succeeded:
		return r.succeeded(ctx, cr, id, p)
	case workflowstate.Failed:
		if stop != "" {
			return failed(stop, why+": "+state.Message), nil
		}
		return failed(ReasonFailed, state.Message), nil
	}
	if stop == "" {
		stop, why = ReasonCancelled, fmt.Sprintf("CustomRun %q was cancelled: its workflow %s was cancelled in Temporal", u.GetName(), id)
	}
	return failed(stop, why), nil
}
