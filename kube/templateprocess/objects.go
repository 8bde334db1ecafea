package templateprocess

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// processObject turns the i-th template object into its processed form in
// library-go's order: decode, drop a fixed namespace, substitute, move a
// legacy kind into its group, add the template's labels. A nil object
// means it could not be decoded; the errors say why.
func processObject(i int, item runtime.RawExtension, values, labels map[string]string) (runtime.Object, field.ErrorList) {
	itemPath := field.NewPath("item").Index(i)
	obj, err := decodeObject(item)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(itemPath.Child("objects"), item,
			fmt.Sprintf("unable to handle object: %v", err))}
	}
	stripNamespace(obj)
	substituteObject(values, obj)
	kind := obj.GetObjectKind()
	kind.SetGroupVersionKind(groupify(kind.GroupVersionKind()))
	if err := addLabels(obj, labels); err != nil {
		return obj, field.ErrorList{field.Invalid(itemPath.Child("labels"), labels,
			fmt.Sprintf("label could not be applied: %v", err))}
	}
	return obj, nil
}

// decodeObject decodes an object as unstructured, as upstream does with the
// JSON that oc read from the template: an object with an items field is an
// UnstructuredList, a kind is required. A typed Object (set by a Go caller
// instead of Raw) is taken as its JSON encoding, which is what oc would
// have read had the template been written to a file.
func decodeObject(item runtime.RawExtension) (runtime.Object, error) {
	raw := item.Raw
	if len(raw) == 0 && item.Object != nil {
		encoded, err := json.Marshal(item.Object)
		if err != nil {
			return nil, fmt.Errorf("encode %T: %w", item.Object, err)
		}
		raw = encoded
	}
	return runtime.Decode(unstructured.UnstructuredJSONScheme, raw)
}

// stripNamespace removes a hard-coded namespace so that the objects land in
// the namespace they are created in, but keeps one holding a ${NAME}
// reference: the template then chooses the namespace through a parameter.
// The branches follow upstream's, including its treatment of a namespace
// that is not a string or sits at the top level of an object without
// metadata.
func stripNamespace(obj runtime.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.Object == nil {
		return // a list has no namespace of its own
	}
	if ns := u.GetNamespace(); ns != "" && !stringRefExp.MatchString(ns) {
		u.SetNamespace("")
		return
	}
	if metadata, ok := u.Object["metadata"]; ok {
		if m, ok := metadata.(map[string]interface{}); ok {
			blankFixedNamespace(m)
		}
		return
	}
	blankFixedNamespace(u.Object)
}

// blankFixedNamespace sets a namespace field that is present but no
// parameter reference to "", as upstream does in its fallback branches.
func blankFixedNamespace(m map[string]interface{}) {
	ns, ok := m["namespace"]
	if !ok {
		return
	}
	if s, isString := ns.(string); !isString || !stringRefExp.MatchString(s) {
		m["namespace"] = ""
	}
}

// substituteObject substitutes every string, keys included, of an
// unstructured object or list.
func substituteObject(values map[string]string, obj runtime.Object) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		substituteMap(values, o.Object)
	case *unstructured.UnstructuredList:
		substituteMap(values, o.Object)
		for i := range o.Items {
			substituteMap(values, o.Items[i].Object)
		}
	}
}

// addLabels adds the template's labels to the object's metadata.labels,
// overwriting same-named ones. Like upstream for unstructured objects, it
// does not touch nested pod or VM templates. A nil set adds nothing; an
// empty one still gives the object a (possibly empty) labels map.
func addLabels(obj runtime.Object, labels map[string]string) error {
	if labels == nil {
		return nil
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	merged := accessor.GetLabels()
	if merged == nil {
		merged = map[string]string{}
	}
	for k, v := range labels {
		merged[k] = v
	}
	accessor.SetLabels(merged)
	return nil
}
