package customrun

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// start starts the run's workflow; a CustomRun that cannot run (a bad
// reference or params) fails at once.
func (r *Reconciler) start(ctx context.Context, u *unstructured.Unstructured, cr run, id string) (outcome, error) {
	typ, in, err := workflowFor(u.GetNamespace(), cr)
	if err != nil {
		return failed(ReasonFailed, err.Error()), nil
	}
	queue := r.TaskQueue
	if queue == "" {
		queue = ssp.TaskQueue
	}
	opts := client.StartWorkflowOptions{
		ID: id, TaskQueue: queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	if _, err := r.Temporal.ExecuteWorkflow(ctx, opts, typ, in); err != nil {
		return outcome{}, fmt.Errorf("starting workflow %s for CustomRun %s/%s: %w", typ, u.GetNamespace(), u.GetName(), err)
	}
	name := cr.Spec.CustomRef.Name
	startedRuns.WithLabelValues(name).Inc()
	r.Recorder.Eventf(u, corev1.EventTypeNormal, ReasonStarted, "%s %s started as workflow %s", cr.Spec.CustomRef.Kind, name, id)
	r.watch(id, workflowstate.State{Phase: workflowstate.Running}, u)
	return running(fmt.Sprintf("Starting %s", name)), nil
}

// cancel asks the workflow to stop; the run stays running until it has
// (a pipeline cleans up its VM first).
func (r *Reconciler) cancel(ctx context.Context, u *unstructured.Unstructured, cr run, id, why string) (outcome, error) {
	if err := r.Temporal.CancelWorkflow(ctx, id, ""); err != nil {
		return outcome{}, fmt.Errorf("cancelling workflow %s of CustomRun %s/%s: %w", id, u.GetNamespace(), u.GetName(), err)
	}
	msg := "Cancelling: " + why
	if c := cr.Status.Conditions; len(c) == 0 || c[0].Message != msg {
		r.Recorder.Event(u, corev1.EventTypeNormal, "Cancelling", why)
	}
	return running(msg), nil
}

// succeeded reports the workflow's results as the CustomRun's.
func (r *Reconciler) succeeded(ctx context.Context, cr run, id string, p ssp.Progress) (outcome, error) {
	o := outcome{status: statusTrue, reason: ReasonSucceeded, message: p.Message}
	wr := r.Temporal.GetWorkflow(ctx, id, "")
	if cr.Spec.CustomRef.Kind == ssp.KindDurablePipeline {
		var res ssp.TemplatePipelineResult
		if err := wr.Get(ctx, &res); err != nil {
			return outcome{}, fmt.Errorf("reading the result of workflow %s: %w", id, err)
		}
		o.results = map[string]string{"vmName": res.VMName, "vmNamespace": res.VMNamespace}
		return o, nil
	}
	var res ssp.TaskResult
	if err := wr.Get(ctx, &res); err != nil {
		return outcome{}, fmt.Errorf("reading the result of workflow %s: %w", id, err)
	}
	o.results = res.Results
	return o, nil
}

// finalize stops a deleted CustomRun's workflow and lets it go once the
// workflow has stopped.
func (r *Reconciler) finalize(ctx context.Context, u *unstructured.Unstructured, id string) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(u, Finalizer) {
		return ctrl.Result{}, nil
	}
	state, err := workflowstate.Describe(ctx, r.Temporal, id, "", nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	if state.Phase == workflowstate.Running {
		if err := r.Temporal.CancelWorkflow(ctx, id, ""); err != nil {
			return ctrl.Result{}, fmt.Errorf("cancelling workflow %s: %w", id, err)
		}
		r.watch(id, state, u)
		return ctrl.Result{RequeueAfter: workflowstate.Resync}, nil
	}
	return ctrl.Result{}, r.dropFinalizer(ctx, u)
}

func (r *Reconciler) dropFinalizer(ctx context.Context, u *unstructured.Unstructured) error {
	if !controllerutil.RemoveFinalizer(u, Finalizer) {
		return nil
	}
	if err := r.Client.Update(ctx, u); err != nil {
		return fmt.Errorf("removing finalizer from CustomRun %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

// watch has the watcher wake the CustomRun on its running workflow's next
// event.
func (r *Reconciler) watch(id string, state workflowstate.State, u *unstructured.Unstructured) {
	if r.watcher != nil && state.Phase == workflowstate.Running {
		r.watcher.Watch(id, state.HistoryLength, u)
	}
}

// requeue looks again at a running CustomRun when its timeout passes, or
// at the resync at the latest.
func (r *Reconciler) requeue(cr run) ctrl.Result {
	after := workflowstate.Resync
	if d := cr.deadline(); !d.IsZero() {
		if until := d.Sub(r.now()) + time.Second; until < after {
			after = max(until, time.Second)
		}
	}
	return ctrl.Result{RequeueAfter: after}
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
