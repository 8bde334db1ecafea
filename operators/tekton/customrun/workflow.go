package customrun

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// startOf is the run's workflow; a run being stopped starts none, and one
// that cannot run (a bad reference or params) notes why and starts none.
func startOf(_ context.Context, u *unstructured.Unstructured, a *attempt) (*workflowreconcile.Workflow, error) {
	if a.stop != "" {
		return nil, nil
	}
	typ, in, err := workflowFor(u, a.run)
	if err != nil {
		a.invalid = err
		return nil, nil
	}
	return &workflowreconcile.Workflow{Type: typ, Input: in}, nil
}

// started records that the run's workflow started.
func (r *Reconciler) started(u *unstructured.Unstructured, cr run, id string) outcome {
	name := cr.Spec.CustomRef.Name
	startedRuns.WithLabelValues(name).Inc()
	r.Recorder.Eventf(u, corev1.EventTypeNormal, ReasonStarted, "%s %s started as workflow %s", cr.Spec.CustomRef.Kind, name, id)
	return running(fmt.Sprintf("Starting %s", name))
}

// cancel asks the workflow to stop; the run stays running until it has
// (a pipeline cleans up its VM first).
func (r *Reconciler) cancel(ctx context.Context, u *unstructured.Unstructured, cr run, id, why string) (outcome, error) {
	if err := r.workflows().Cancel(ctx, id); err != nil {
		return outcome{}, fmt.Errorf("CustomRun %s/%s: %w", u.GetNamespace(), u.GetName(), err)
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
