package apply

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Manifests server-side applies every object of a multi-document YAML (or
// JSON) stream as owner, taking over fields another owner holds, as
// `kubectl apply --server-side --force-conflicts` does. It returns the
// objects in order.
func Manifests(ctx context.Context, c client.Client, data []byte, owner string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("decoding manifest: %w", err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := c.Patch(ctx, obj, client.Apply, client.FieldOwner(owner), client.ForceOwnership); err != nil {
			return nil, fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		out = append(out, obj)
	}
}
