package templateprocess

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const renderTemplate = `
metadata: {name: t}
objects:
- kind: Service
  apiVersion: v1
  metadata:
    name: "${NAME}"
    managedFields: [{manager: kubectl}]
  spec:
    ports: [{port: "${{PORT}}"}]
    html: "<a&b>"
- {kind: Route, apiVersion: v1, metadata: {name: r}}
parameters:
- {name: NAME, value: web}
- {name: PORT, value: "8080"}
`

// TestRenderJSON checks oc process's default output byte for byte.
func TestRenderJSON(t *testing.T) {
	out, err := processWith(parseTemplate(t, renderTemplate), Options{})
	require.NoError(t, err)
	got, err := RenderJSON(out.Objects)
	require.NoError(t, err)
	require.Equal(t, `{
    "kind": "List",
    "apiVersion": "v1",
    "metadata": {},
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": "web"
            },
            "spec": {
                "html": "\u003ca\u0026b\u003e",
                "ports": [
                    {
                        "port": 8080
                    }
                ]
            }
        },
        {
            "apiVersion": "route.openshift.io/v1",
            "kind": "Route",
            "metadata": {
                "name": "r"
            }
        }
    ]
}
`, string(got))
	managed := out.Objects[0].Object.(*unstructured.Unstructured).GetManagedFields()
	require.Len(t, managed, 1, "rendering leaves the processed objects alone")
}

// TestRenderYAML checks oc process -o yaml byte for byte.
func TestRenderYAML(t *testing.T) {
	out, err := processWith(parseTemplate(t, renderTemplate), Options{})
	require.NoError(t, err)
	got, err := RenderYAML(out.Objects)
	require.NoError(t, err)
	require.Equal(t, `apiVersion: v1
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: web
  spec:
    html: <a&b>
    ports:
    - port: 8080
- apiVersion: route.openshift.io/v1
  kind: Route
  metadata:
    name: r
kind: List
metadata: {}
`, string(got))
}

// TestRenderWithoutObjects checks a template without objects (null items,
// as oc prints it) and one with an empty list.
func TestRenderWithoutObjects(t *testing.T) {
	tests := []struct{ name, json, yaml string }{
		{"no objects field", "{\n    \"kind\": \"List\",\n    \"apiVersion\": \"v1\",\n    \"metadata\": {},\n    \"items\": null\n}\n",
			"apiVersion: v1\nitems: null\nkind: List\nmetadata: {}\n"},
		{"empty objects", "{\n    \"kind\": \"List\",\n    \"apiVersion\": \"v1\",\n    \"metadata\": {},\n    \"items\": []\n}\n",
			"apiVersion: v1\nitems: []\nkind: List\nmetadata: {}\n"},
	}
	for _, tt := range tests {
		var objects []runtime.RawExtension
		if tt.name == "empty objects" {
			objects = []runtime.RawExtension{}
		}
		j, err := RenderJSON(objects)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.json, string(j), tt.name)
		y, err := RenderYAML(objects)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.yaml, string(y), tt.name)
	}
}

// TestListKeepsRawItems checks that an item given as Raw JSON is printed
// as it is, managed fields included, as oc's printer does.
func TestListKeepsRawItems(t *testing.T) {
	raw := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"managedFields":[{"manager":"m"}]}}`)
	list := List([]runtime.RawExtension{{Raw: raw}})
	require.Equal(t, "List", list.Kind)
	require.Equal(t, "v1", list.APIVersion)
	require.Equal(t, raw, list.Items[0].Raw)
}
