package templateprocess

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// processObjects processes objects (a YAML list) with parameters (a YAML
// list) and returns the objects as JSON.
func processObjects(t *testing.T, objects, parameters string, opts Options) []string {
	t.Helper()
	tpl := parseTemplate(t, "metadata: {name: t}\nobjects: "+objects+"\nparameters: "+parameters)
	out, err := processWith(tpl, opts)
	require.NoError(t, err)
	return objectsJSON(t, out)
}

// TestProcessNamespaces checks which namespaces are dropped: fixed ones go,
// ones holding a ${NAME} reference stay and are substituted.
func TestProcessNamespaces(t *testing.T) {
	tests := []struct{ name, object, want string }{
		{"fixed namespace removed", `{kind: ConfigMap, apiVersion: v1, metadata: {name: a, namespace: fixed}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`},
		{"parameter namespace substituted", `{kind: ConfigMap, apiVersion: v1, metadata: {namespace: "${NS}"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"myns"}}`},
		{"partial reference kept", `{kind: ConfigMap, apiVersion: v1, metadata: {namespace: "pre-${NS}"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"pre-myns"}}`},
		{"unknown reference kept as is", `{kind: ConfigMap, apiVersion: v1, metadata: {namespace: "${OTHER}"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"${OTHER}"}}`},
		{"raw reference is no reference here", `{kind: ConfigMap, apiVersion: v1, metadata: {namespace: "${{NS}}"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`},
		{"empty namespace stays empty", `{kind: ConfigMap, apiVersion: v1, metadata: {namespace: ""}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":""}}`},
		{"non-string namespace blanked", `{kind: ConfigMap, apiVersion: v1, metadata: {namespace: 5}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":""}}`},
		{"top-level namespace without metadata blanked", `{kind: ConfigMap, apiVersion: v1, namespace: top}`,
			`{"apiVersion":"v1","kind":"ConfigMap","namespace":""}`},
		{"top-level parameter namespace kept", `{kind: ConfigMap, apiVersion: v1, namespace: "${NS}"}`,
			`{"apiVersion":"v1","kind":"ConfigMap","namespace":"myns"}`},
		{"nested namespaces untouched", `{kind: VirtualMachine, apiVersion: kubevirt.io/v1, spec: {dataVolumeTemplates: [{spec: {sourceRef: {namespace: images}}}]}}`,
			`{"apiVersion":"kubevirt.io/v1","kind":"VirtualMachine","spec":{"dataVolumeTemplates":[{"spec":{"sourceRef":{"namespace":"images"}}}]}}`},
		{"list items keep theirs", `{kind: List, apiVersion: v1, items: [{kind: ConfigMap, apiVersion: v1, metadata: {name: "${NS}", namespace: x}}]}`,
			`{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"myns","namespace":"x"}}],"kind":"List"}`},
	}
	for _, tt := range tests {
		got := processObjects(t, "["+tt.object+"]", `[{name: NS, value: myns}]`, Options{})
		require.Equal(t, []string{tt.want}, got, tt.name)
	}
}

// TestProcessLegacyKinds checks that group-less OpenShift kinds get their
// group, after substitution, and that nothing else changes.
func TestProcessLegacyKinds(t *testing.T) {
	tests := []struct{ object, want string }{
		{`{kind: Route, apiVersion: v1}`, `{"apiVersion":"route.openshift.io/v1","kind":"Route"}`},
		{`{kind: DeploymentConfig, apiVersion: v1}`, `{"apiVersion":"apps.openshift.io/v1","kind":"DeploymentConfig"}`},
		{`{kind: ImageStream, apiVersion: v1}`, `{"apiVersion":"image.openshift.io/v1","kind":"ImageStream"}`},
		{`{kind: Template, apiVersion: v1}`, `{"apiVersion":"template.openshift.io/v1","kind":"Template"}`},
		{`{kind: "${KIND}", apiVersion: v1}`, `{"apiVersion":"build.openshift.io/v1","kind":"BuildConfig"}`},
		{`{kind: Route, apiVersion: route.openshift.io/v1}`, `{"apiVersion":"route.openshift.io/v1","kind":"Route"}`},
		{`{kind: Route, apiVersion: other.io/v1}`, `{"apiVersion":"other.io/v1","kind":"Route"}`},
		{`{kind: Service, apiVersion: v1}`, `{"apiVersion":"v1","kind":"Service"}`},
		// An apiVersion that does not parse is emptied, as upstream's
		// GroupVersionKind round trip does.
		{`{kind: Foo}`, `{"apiVersion":"","kind":"Foo"}`},
	}
	for _, tt := range tests {
		got := processObjects(t, "["+tt.object+"]", `[{name: KIND, value: BuildConfig}]`, Options{})
		require.Equal(t, []string{tt.want}, got, tt.object)
	}
}

// TestProcessLabels checks the template's labels (and the user's) on
// every object's metadata, and only there.
func TestProcessLabels(t *testing.T) {
	objects := `[{kind: ConfigMap, apiVersion: v1, metadata: {name: a, labels: {over: o, keep: k}}},
		{kind: Pod, apiVersion: v1, spec: {template: {metadata: {labels: {x: "y"}}}}}]`
	tests := []struct {
		name, labels string
		user         map[string]string
		want         []string
	}{
		{"no labels", ``, nil, []string{
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"keep":"k","over":"o"},"name":"a"}}`,
			`{"apiVersion":"v1","kind":"Pod","spec":{"template":{"metadata":{"labels":{"x":"y"}}}}}`}},
		{"template labels, substituted, overriding", `{over: t, "${K}": "${V}"}`, nil, []string{
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"keep":"k","key":"value","over":"t"},"name":"a"}}`,
			`{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"key":"value","over":"t"}},"spec":{"template":{"metadata":{"labels":{"x":"y"}}}}}`}},
		{"user labels override template labels", `{over: t, tpl: x}`, map[string]string{"over": "user-${V}"}, []string{
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"keep":"k","over":"user-value","tpl":"x"},"name":"a"}}`,
			`{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"over":"user-value","tpl":"x"}},"spec":{"template":{"metadata":{"labels":{"x":"y"}}}}}`}},
		{"empty template labels give empty labels", `{}`, nil, []string{
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"keep":"k","over":"o"},"name":"a"}}`,
			`{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{}},"spec":{"template":{"metadata":{"labels":{"x":"y"}}}}}`}},
	}
	for _, tt := range tests {
		objs := objects
		if tt.labels != "" {
			objs += "\nlabels: " + tt.labels
		}
		got := processObjects(t, objs, `[{name: K, value: key}, {name: V, value: value}]`, Options{Labels: tt.user})
		require.Equal(t, tt.want, got, tt.name)
	}
}

// TestProcessObjectErrors checks the errors for objects that cannot be
// processed, all of them reported.
func TestProcessObjectErrors(t *testing.T) {
	tests := []struct{ name, doc, err string }{
		{"kind missing and not an object", `{metadata: {name: t}, objects: [{apiVersion: v1}, {kind: ConfigMap, apiVersion: v1}, "str"]}`,
			`Template.template.openshift.io "t" is invalid: [item[0].objects: Invalid value: {"apiVersion":"v1"}: unable to handle object: Object 'Kind' is missing in '{"apiVersion":"v1"}', item[2].objects: Invalid value: "str": unable to handle object: json: cannot unmarshal string into Go value of type unstructured.detector]`},
		{"labels on a list", `{metadata: {name: t}, labels: {a: b}, objects: [{kind: List, apiVersion: v1, items: []}]}`,
			`Template.template.openshift.io "t" is invalid: item[0].labels: Invalid value: {"a":"b"}: label could not be applied: object does not implement the Object interfaces`},
	}
	for _, tt := range tests {
		_, err := processWith(parseTemplate(t, tt.doc), Options{})
		require.EqualError(t, err, tt.err, tt.name)
	}
}
