package customrun

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// writeStatus patches the CustomRun's status with the outcome, through the
// status subresource, when it changes anything; it returns the status
// written.
func (r *Reconciler) writeStatus(ctx context.Context, u *unstructured.Unstructured, cr run, o outcome) (runStatus, error) {
	st := o.apply(cr.Status, u.GetGeneration(), r.now())
	if reflect.DeepEqual(st, cr.Status) {
		return st, nil
	}
	m, err := toMap(st)
	if err != nil {
		return st, err
	}
	base := u.DeepCopy()
	u.Object["status"] = m
	if err := r.Client.Status().Patch(ctx, u, crclient.MergeFrom(base)); err != nil {
		return st, fmt.Errorf("writing the status of CustomRun %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return st, nil
}

func toMap(st runStatus) (map[string]any, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encoding CustomRun status: %w", err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("encoding CustomRun status: %w", err)
	}
	return m, nil
}

// finished records a run's end: an event with its reason, and metrics.
func (r *Reconciler) finished(u *unstructured.Unstructured, cr run, st runStatus, o outcome) {
	typ := corev1.EventTypeWarning
	if o.status == statusTrue {
		typ = corev1.EventTypeNormal
	}
	r.Recorder.Event(u, typ, o.reason, o.message)
	task := cr.Spec.CustomRef.Name
	finishedRuns.WithLabelValues(task, o.reason).Inc()
	if st.StartTime != nil && st.CompletionTime != nil {
		duration.WithLabelValues(task).Observe(st.CompletionTime.Sub(st.StartTime.Time).Seconds())
	}
}
