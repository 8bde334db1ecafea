// Package apply creates an object or brings the fields its owner manages
// back to their desired values, leaving what the server defaulted alone.
package apply

import (
	"context"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Managed creates desired or, when it exists, reverts any field of its spec,
// labels and annotations that the HyperConverged manages. It reports whether it wrote.
// Fields the server defaulted, which desired leaves unset, are not drift.
func Managed(ctx context.Context, c client.Client, desired client.Object) (bool, error) {
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(desired)
	if err != nil {
		return false, fmt.Errorf("converting desired %s: %w", desired.GetName(), err)
	}
	kind := desired.GetObjectKind().GroupVersionKind().Kind
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(desired.GetObjectKind().GroupVersionKind())
	err = c.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	if apierrors.IsNotFound(err) {
		obj := &unstructured.Unstructured{Object: want}
		obj.SetGroupVersionKind(desired.GetObjectKind().GroupVersionKind())
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("creating %s %s: %w", kind, desired.GetName(), err)
		}
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s %s: %w", kind, desired.GetName(), err)
	}
	if !drifted(want, existing) {
		return false, nil
	}
	existing.Object["spec"] = want["spec"]
	labels := existing.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range desired.GetLabels() {
		labels[k] = v
	}
	existing.SetLabels(labels)
	annotations := existing.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	for k, v := range desired.GetAnnotations() {
		annotations[k] = v
	}
	existing.SetAnnotations(annotations)
	existing.SetOwnerReferences(desired.GetOwnerReferences())
	if err := c.Update(ctx, existing); err != nil {
		return false, fmt.Errorf("reverting %s %s to the HyperConverged's settings: %w", kind, desired.GetName(), err)
	}
	return true, nil
}

func drifted(want map[string]any, existing *unstructured.Unstructured) bool {
	for k, v := range wantMeta(want, "labels") {
		if existing.GetLabels()[k] != v {
			return true
		}
	}
	for k, v := range wantMeta(want, "annotations") {
		if existing.GetAnnotations()[k] != v {
			return true
		}
	}
	return !subset(want["spec"], existing.Object["spec"])
}

// wantMeta is the desired object's labels or annotations (field).
func wantMeta(want map[string]any, field string) map[string]string {
	out := map[string]string{}
	meta, _ := want["metadata"].(map[string]any)
	values, _ := meta[field].(map[string]any)
	for k, v := range values {
		out[k], _ = v.(string)
	}
	return out
}

// subset reports whether every value set in want equals the one in have.
// Lists must match exactly: an element added to a managed list is drift.
func subset(want, have any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return len(w) == 0
		}
		for k, wv := range w {
			if !subset(wv, h[k]) {
				return false
			}
		}
		return true
	case nil:
		return true
	default:
		return reflect.DeepEqual(normalise(want), normalise(have))
	}
}

// normalise makes numbers compare by value: the converter yields int64 for
// Go ints, and a server round trip may yield float64 or int64.
func normalise(v any) any {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case int32:
		return float64(n)
	case int:
		return float64(n)
	case []any:
		out := make([]any, len(n))
		for i := range n {
			out[i] = normalise(n[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, x := range n {
			out[k] = normalise(x)
		}
		return out
	}
	return v
}
