package templateprocess

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// List wraps processed objects in the v1 List that oc process prints. As
// oc's printers do by default (no --show-managed-fields), items that are
// objects lose metadata.managedFields; the given objects are not changed.
func List(objects []runtime.RawExtension) *corev1.List {
	var items []runtime.RawExtension
	if objects != nil {
		// oc prints a template without objects as "items": null; keep nil.
		items = make([]runtime.RawExtension, len(objects))
	}
	for i, item := range objects {
		items[i] = withoutManagedFields(item)
	}
	return &corev1.List{
		TypeMeta: metav1.TypeMeta{Kind: "List", APIVersion: "v1"},
		Items:    items,
	}
}

// withoutManagedFields returns a copy of an item without managed fields;
// items that are no single object are kept as they are, as oc's printer
// does.
func withoutManagedFields(item runtime.RawExtension) runtime.RawExtension {
	if item.Object == nil {
		return item
	}
	if _, err := meta.Accessor(item.Object); err != nil {
		return item
	}
	obj := item.Object.DeepCopyObject()
	accessor, _ := meta.Accessor(obj)
	accessor.SetManagedFields(nil)
	return runtime.RawExtension{Raw: item.Raw, Object: obj}
}

// RenderJSON is oc process -o json (its default output): the List as
// indented JSON, four spaces, keys of objects sorted, newline-terminated.
func RenderJSON(objects []runtime.RawExtension) ([]byte, error) {
	data, err := json.MarshalIndent(List(objects), "", "    ")
	if err != nil {
		return nil, fmt.Errorf("encode processed objects as JSON: %w", err)
	}
	return append(data, '\n'), nil
}

// RenderYAML is oc process -o yaml: the List as YAML with sorted keys.
func RenderYAML(objects []runtime.RawExtension) ([]byte, error) {
	data, err := yaml.Marshal(List(objects))
	if err != nil {
		return nil, fmt.Errorf("encode processed objects as YAML: %w", err)
	}
	return data, nil
}
