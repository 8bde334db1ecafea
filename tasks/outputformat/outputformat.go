// Package outputformat prints what a step program made or edited as its
// --output (-o) option asks, as upstream's create-vm, copy-template,
// modify-vm-template and modify-data-object do: YAML, JSON indented by
// four spaces, or nothing.
package outputformat

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime/schema"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// The formats --output takes; "" prints nothing.
const (
	YAML = "yaml"
	JSON = "json"
)

// Check refuses a format --output does not take, with upstream's message.
func Check(format string) error {
	if format != "" && format != YAML && format != JSON {
		return fmt.Errorf("%v is not a valid output type", format)
	}
	return nil
}

// Print writes v to w in format; any other format than YAML or JSON, or
// no w, prints nothing. what names v in an error.
func Print(w io.Writer, what string, v any, format string) error {
	if w == nil || (format != YAML && format != JSON) {
		return nil
	}
	var data []byte
	var err error
	if format == JSON {
		data, err = json.MarshalIndent(v, "", "    ")
		data = append(data, '\n')
	} else {
		data, err = yaml.Marshal(v)
	}
	if err != nil {
		return fmt.Errorf("printing %s: %w", what, err)
	}
	_, err = w.Write(data)
	return err
}

// PrintObject prints a copy of obj with its apiVersion and kind, which a
// typed object the client read or wrote leaves empty, set to gvk's.
func PrintObject(w io.Writer, obj crclient.Object, gvk schema.GroupVersionKind, format string) error {
	if w == nil || format == "" {
		return nil
	}
	out := obj.DeepCopyObject()
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return Print(w, fmt.Sprintf("%s %s/%s", gvk.Kind, obj.GetNamespace(), obj.GetName()), out, format)
}
