package operands

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/kube/conditions"
)

// Object is an empty object of the component's kind and name, to read or
// delete it without knowing its Go type.
func Object(ref hco.ComponentRef) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))
	obj.SetNamespace(ref.Namespace)
	obj.SetName(ref.Name)
	return obj
}

// ReadStatus reads the Available condition of a component CR.
func ReadStatus(ctx context.Context, c client.Reader, ref hco.ComponentRef) (hco.ComponentStatus, error) {
	st := hco.ComponentStatus{Component: ref, Message: "not created yet"}
	obj := Object(ref)
	if err := c.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, obj); err != nil {
		return st, err
	}
	st.Version = conditions.ObservedVersion(obj)
	cond, ok := conditions.Find(conditions.Of(obj), "Available")
	if !ok {
		st.Message = "no Available condition reported yet"
		return st, nil
	}
	st.Available, st.Reason, st.Message = cond.Status == "True", cond.Reason, cond.Message
	return st, nil
}
