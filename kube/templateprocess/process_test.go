package templateprocess

import (
	"encoding/json"
	"errors"
	"math/rand"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// parseTemplate decodes a template as oc reads one from a file.
func parseTemplate(t *testing.T, doc string) *templatev1.Template {
	t.Helper()
	var tpl templatev1.Template
	require.NoError(t, yaml.Unmarshal([]byte(doc), &tpl))
	return &tpl
}

// processWith processes with a fixed seed.
func processWith(tpl *templatev1.Template, opts Options) (*templatev1.Template, error) {
	if opts.Random == nil {
		opts.Random = rand.NewSource(1337)
	}
	return Process(tpl, opts)
}

// objectsJSON is the processed objects as compact JSON, one per object.
func objectsJSON(t *testing.T, tpl *templatev1.Template) []string {
	t.Helper()
	var out []string
	for _, item := range tpl.Objects {
		require.Nil(t, item.Raw)
		data, err := json.Marshal(item.Object)
		require.NoError(t, err)
		out = append(out, string(data))
	}
	return out
}

// TestProcessParameterErrors checks the StatusError oc prints for
// parameters that cannot get a value, text and causes.
func TestProcessParameterErrors(t *testing.T) {
	tests := []struct {
		name, params, err string
	}{
		{"required without value", `[{name: A, required: true}]`,
			`Template.template.openshift.io "t" is invalid: template.parameters[0]: Required value: template.parameters[0]: parameter A is required and must be specified`},
		{"required with empty generated value", `[{name: X, value: x}, {name: A, required: true, generate: expression, from: ""}]`,
			`Template.template.openshift.io "t" is invalid: template.parameters[1]: Required value: template.parameters[1]: parameter A is required and must be specified`},
		{"unknown generator", `[{name: D, generate: foo, from: "[a-z]{3}"}]`,
			`Template.template.openshift.io "t" is invalid: template.parameters[0]: Invalid value: "foo": Unknown generator name 'foo' for parameter D`},
		{"malformed expression", `[{name: E, generate: expression, from: "[abc]{3}"}]`,
			`Template.template.openshift.io "t" is invalid: template.parameters[0]: Invalid value: {"name":"E","generate":"expression","from":"[abc]{3}"}: malformed expresion syntax: [abc]`},
		{"several, in order", `[{name: A, required: true}, {name: B, value: b, required: true}, {name: G, required: true, description: d, generate: expression, from: "[a-z]{256}"}, {name: R, generate: expression, from: "[z-a]{1}"}]`,
			`Template.template.openshift.io "t" is invalid: [template.parameters[0]: Required value: template.parameters[0]: parameter A is required and must be specified, template.parameters[2]: Invalid value: {"name":"G","description":"d","generate":"expression","from":"[a-z]{256}","required":true}: range must be within [1-255] characters (256), template.parameters[3]: Invalid value: {"name":"R","generate":"expression","from":"[z-a]{1}"}: invalid range specified: z-a]`},
	}
	for _, tt := range tests {
		tpl := parseTemplate(t, "metadata: {name: t}\nobjects: [{kind: ConfigMap, apiVersion: v1}]\nparameters: "+tt.params)
		out, err := processWith(tpl, Options{})
		require.EqualError(t, err, tt.err, tt.name)
		require.Nil(t, out, tt.name)
		var status *apierrors.StatusError
		require.True(t, errors.As(err, &status), tt.name)
		require.Equal(t, "t", status.ErrStatus.Details.Name, tt.name)
		causes := status.ErrStatus.Details.Causes
		require.Regexp(t, `^template\.parameters\[\d\]$`, causes[0].Field, tt.name)
		require.Contains(t, tt.err, causes[0].Field+": "+causes[0].Message, tt.name)
	}
}

// TestProcessUnknownParameters checks oc's texts and its ignore flag.
func TestProcessUnknownParameters(t *testing.T) {
	tpl := parseTemplate(t, `{metadata: {name: t}, objects: [{kind: ConfigMap, apiVersion: v1, metadata: {name: "${P}"}}], parameters: [{name: P, value: p}]}`)

	_, err := processWith(tpl, Options{Values: map[string]string{"X": "1", "P": "q"}})
	require.EqualError(t, err, "unknown parameter name \"X\"\n")

	_, err = processWith(tpl, Options{Values: map[string]string{"Z": "1", "A": "2"}})
	require.EqualError(t, err, "[unknown parameter name \"A\"\n, unknown parameter name \"Z\"\n]")

	out, err := processWith(tpl, Options{Values: map[string]string{"X": "1", "P": "q"}, IgnoreUnknownParameters: true})
	require.NoError(t, err)
	require.Equal(t, []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"q"}}`}, objectsJSON(t, out))
}

// TestProcessParameterValues covers where a parameter's value comes from.
func TestProcessParameterValues(t *testing.T) {
	tpl := parseTemplate(t, `
metadata: {name: t}
objects: [{kind: ConfigMap, apiVersion: v1, metadata: {name: "${A}.${B}.${C}.${D}.${E}"}}]
parameters:
- {name: A, value: template}
- {name: B, generate: expression, from: "gen-[a-z]{3}"}
- {name: C, value: kept, generate: expression, from: "[a-z]{3}"}
- {name: D, generate: expression, from: "[a-z]{3}"}
- {name: E}
- {name: A, value: second}
`)
	tests := []struct {
		name   string
		values map[string]string
		want   string
	}{
		{"template values, generated in order, last duplicate counts", nil, "second.gen-ndy.kept.bqx."},
		{"user values override value and generator", map[string]string{"A": "ua", "B": "ub", "E": "ue"}, "second.ub.kept.ndy.ue"},
		{"empty user value turns the generator off", map[string]string{"B": ""}, "second..kept.ndy."},
	}
	for _, tt := range tests {
		out, err := processWith(tpl, Options{Values: tt.values})
		require.NoError(t, err, tt.name)
		require.Equal(t, []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + tt.want + `"}}`},
			objectsJSON(t, out), tt.name)
	}
}

// TestProcessReportsFinalParameters checks the processed template's
// parameters: generated values in, generators of user values off.
func TestProcessReportsFinalParameters(t *testing.T) {
	tpl := parseTemplate(t, `{metadata: {name: t}, parameters: [{name: G, generate: expression, from: "[A-Z]{4}"}, {name: U, generate: expression, from: "[a-z]{2}"}]}`)
	out, err := processWith(tpl, Options{Values: map[string]string{"U": "mine"}})
	require.NoError(t, err)
	require.Equal(t, []templatev1.Parameter{
		{Name: "G", Generate: "expression", From: "[A-Z]{4}", Value: "NDYB"},
		{Name: "U", From: "[a-z]{2}", Value: "mine"},
	}, out.Parameters)
	require.Empty(t, tpl.Parameters[0].Value, "the input is not changed")
	require.Equal(t, "expression", tpl.Parameters[1].Generate, "the input is not changed")
}

// TestProcessNeedsRandomOnlyToGenerate checks the nil random source.
func TestProcessNeedsRandomOnlyToGenerate(t *testing.T) {
	tpl := parseTemplate(t, `{metadata: {name: t}, parameters: [{name: A, value: a}, {name: G, generate: expression, from: "[a-z]{3}"}]}`)
	_, err := Process(tpl, Options{})
	require.EqualError(t, err, "generate a value for parameter G: no random source in the options")
	_, err = Process(tpl, Options{Values: map[string]string{"G": "given"}})
	require.NoError(t, err)
}

// TestProcessDoesNotChangeItsInput checks that the objects are processed
// in a copy.
func TestProcessDoesNotChangeItsInput(t *testing.T) {
	doc := `{metadata: {name: t}, message: "${P}", labels: {a: "${P}"}, objects: [{kind: ConfigMap, apiVersion: v1, metadata: {name: "${P}", namespace: x}}], parameters: [{name: P, value: p}]}`
	tpl := parseTemplate(t, doc)
	_, err := processWith(tpl, Options{Labels: map[string]string{"b": "c"}})
	require.NoError(t, err)
	require.Equal(t, parseTemplate(t, doc), tpl)
}

// TestProcessMessage checks that the message is substituted, a
// ${{NAME}} message included.
func TestProcessMessage(t *testing.T) {
	for msg, want := range map[string]string{
		"Your credentials are ${USER}:${PASSWORD} (${UNKNOWN})": "Your credentials are admin:NDY (${UNKNOWN})",
		"${{USER}}":   "admin",
		"a${{USER}}a": "a${{USER}}a",
	} {
		tpl := &templatev1.Template{Message: msg, Parameters: []templatev1.Parameter{
			{Name: "USER", Value: "admin"}, {Name: "PASSWORD", Generate: "expression", From: "[A-Z]{3}"}}}
		out, err := processWith(tpl, Options{})
		require.NoError(t, err, msg)
		require.Equal(t, want, out.Message, msg)
	}
}

// TestProcessTypedObject checks that an Object set by a Go caller is
// processed as its JSON.
func TestProcessTypedObject(t *testing.T) {
	cm := map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]interface{}{"k": "${{N}}"}}
	raw, err := json.Marshal(cm)
	require.NoError(t, err)
	tpl := &templatev1.Template{
		Objects:    []runtime.RawExtension{{Object: &runtime.Unknown{Raw: raw, ContentType: runtime.ContentTypeJSON}}},
		Parameters: []templatev1.Parameter{{Name: "N", Value: "7"}},
	}
	out, err := processWith(tpl, Options{})
	require.NoError(t, err)
	require.Equal(t, []string{`{"apiVersion":"v1","data":{"k":7},"kind":"ConfigMap"}`}, objectsJSON(t, out))
}
