// Package workflowreconcile is the one lifecycle of a Kubernetes object
// whose work is a Temporal workflow: get it; on deletion cancel its
// workflow, wait for it to stop and drop the finalizer; otherwise hold it
// with the finalizer, describe its workflow, start it when absent (a
// stable ID, conflict policy use-existing), map the workflow's state and
// progress memo onto the object's status, patched once, and wait for the
// workflow's next event to wake the reconciler.
//
// A kind supplies what differs through Lifecycle's hooks. Objects and
// Workflows, the pieces the lifecycle is made of, also serve a kind whose
// work is not one workflow, such as a DataImportCron's schedule.
package workflowreconcile

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Run is an object's workflow as one reconcile found it.
type Run struct {
	// ID is the workflow's ID.
	ID string
	// State is the execution's phase, failure, pending activities and
	// history length.
	workflowstate.State
	// Started tells that this reconcile started the workflow, so the kind
	// can announce it once.
	Started bool
}

// Lifecycle reconciles the objects of one kind backed by one workflow
// each. V is what one reconcile gathers about an object (the claim it
// fills, its decoded spec, its workflow's progress) and hands from hook to
// hook; nothing is kept between reconciles, so the reconciler may build
// its Lifecycle afresh each time.
type Lifecycle[T client.Object, V any] struct {
	Objects
	Workflows

	// New returns an empty object to read into.
	New func() T
	// Accept tells whether the reconciler acts on obj at all; it may
	// report on obj why not. Optional: every object is accepted.
	Accept func(ctx context.Context, obj T) (bool, error)
	// WorkflowID is obj's workflow's ID, the same on every reconcile
	// (derived from the UID), which is what makes starting idempotent.
	WorkflowID func(obj T) string
	// Prepare gathers what starting and reporting need, before the
	// workflow is looked at. A non-nil result ends the reconcile there,
	// with that result: the object cannot start yet, or needs nothing
	// more, and the kind has said so in its status. Optional.
	Prepare func(ctx context.Context, obj T) (V, *reconcile.Result, error)
	// MemoKey is the memo field the workflow publishes its progress in.
	MemoKey string
	// Progress points into v where that memo field is decoded. Optional:
	// without it the memo is not read.
	Progress func(v *V) any
	// Start says how to start obj's absent workflow. A nil Workflow leaves
	// it absent: the run reaches Report as NotFound, and the kind says
	// why. Start may note in v what Report needs.
	Start func(ctx context.Context, obj T, v *V) (*Workflow, error)
	// Report maps the run onto obj's status and writes it once. Its
	// result stands; while the run is running a zero result becomes the
	// resync, and the workflow is watched.
	Report func(ctx context.Context, obj T, v *V, run Run) (reconcile.Result, error)
	// Finalize is what deletion does beyond stopping the workflow, once
	// it has stopped; the finalizer goes when it reports done, else its
	// result says when to look again. Optional.
	Finalize func(ctx context.Context, obj T) (done bool, res reconcile.Result, err error)
}

// Reconcile runs the lifecycle for the object req names.
func (l Lifecycle[T, V]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := l.New()
	if err := l.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if l.Accept != nil {
		if ok, err := l.Accept(ctx, obj); !ok || err != nil {
			return reconcile.Result{}, err
		}
	}
	if obj.GetDeletionTimestamp() != nil {
		return l.finalize(ctx, obj)
	}
	if err := l.Hold(ctx, obj); err != nil {
		return reconcile.Result{}, err
	}
	var v V
	if l.Prepare != nil {
		var stop *reconcile.Result
		var err error
		if v, stop, err = l.Prepare(ctx, obj); err != nil || stop != nil {
			return resultOf(stop), err
		}
	}
	run, err := l.observe(ctx, obj, &v)
	if err != nil {
		return reconcile.Result{}, err
	}
	res, err := l.Report(ctx, obj, &v, run)
	if err != nil {
		return res, err
	}
	return l.after(run, obj, res), nil
}

// observe describes obj's workflow, decoding its progress into v, and
// starts it when absent.
func (l Lifecycle[T, V]) observe(ctx context.Context, obj T, v *V) (Run, error) {
	run := Run{ID: l.WorkflowID(obj)}
	var progress any
	if l.Progress != nil {
		progress = l.Progress(v)
	}
	var err error
	run.State, err = workflowstate.Describe(ctx, l.Temporal, run.ID, l.MemoKey, progress)
	if err != nil || run.Phase != workflowstate.NotFound {
		return run, err
	}
	wf, err := l.Start(ctx, obj, v)
	if err != nil || wf == nil {
		return run, err
	}
	if err := l.Ensure(ctx, run.ID, *wf); err != nil {
		return run, fmt.Errorf("%s %s: %w", l.Kind, nameOf(obj), err)
	}
	// A run just started has no history the watcher could skip.
	run.State = workflowstate.State{Phase: workflowstate.Running}
	run.Started = true
	return run, nil
}

// after is the reconcile's result: a running workflow is watched, and
// looked at again after the resync unless the kind asked for sooner.
func (l Lifecycle[T, V]) after(run Run, obj T, res reconcile.Result) reconcile.Result {
	if run.Phase != workflowstate.Running {
		return res
	}
	waiting := l.Wait(run.ID, run.State, obj)
	if res.IsZero() {
		return waiting
	}
	return res
}

// finalize stops a deleted object's workflow and waits for it to close,
// since a cancelled workflow cleans up what it made, then runs the kind's
// own finalization and lets the object go.
func (l Lifecycle[T, V]) finalize(ctx context.Context, obj T) (reconcile.Result, error) {
	if l.Finalizer != "" && !l.Holds(obj) {
		return reconcile.Result{}, nil
	}
	id := l.WorkflowID(obj)
	state, err := workflowstate.Describe(ctx, l.Temporal, id, "", nil)
	if err != nil {
		return reconcile.Result{}, err
	}
	if state.Phase == workflowstate.Running {
		if err := l.Cancel(ctx, id); err != nil {
			return reconcile.Result{}, fmt.Errorf("%s %s: %w", l.Kind, nameOf(obj), err)
		}
		if l.Finalizer == "" {
			// Nothing holds the object, so there is nothing to wait for.
			return reconcile.Result{}, nil
		}
		return l.Wait(id, state, obj), nil
	}
	if l.Finalize != nil {
		if done, res, err := l.Finalize(ctx, obj); err != nil || !done {
			return res, err
		}
	}
	return reconcile.Result{}, l.Release(ctx, obj)
}

func resultOf(res *reconcile.Result) reconcile.Result {
	if res == nil {
		return reconcile.Result{}
	}
	return *res
}
