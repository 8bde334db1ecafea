// Package tasktest is what the task packages' tests run a Task on: a fake
// cluster that knows every kind virtflow does, a task environment on it,
// and a process environment without the step programs' variables.
package tasktest

import (
	"bytes"
	"os"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clienttesting "k8s.io/client-go/testing"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/tasks/stepargs"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Namespace is the active namespace of Env.
const Namespace = "active"

// Builder is a fake client builder for every kind virtflow knows.
func Builder(t testing.TB) *fake.ClientBuilder {
	t.Helper()
	s, err := scheme.New()
	require.NoError(t, err)
	return fake.NewClientBuilder().WithScheme(s)
}

// BuilderWithoutFieldManagement is Builder with an object tracker that
// manages no fields: the fake one's cannot take a VMI's uint64 fields.
func BuilderWithoutFieldManagement(t testing.TB) *fake.ClientBuilder {
	t.Helper()
	s, err := scheme.New()
	require.NoError(t, err)
	tracker := clienttesting.NewObjectTracker(s, serializer.NewCodecFactory(s).UniversalDecoder())
	return fake.NewClientBuilder().WithScheme(s).WithObjectTracker(tracker)
}

// Env is a task environment on a fake cluster holding objs, in Namespace,
// with results into a map and the log into the buffer returned.
func Env(t testing.TB, objs ...crclient.Object) (stepenv.Env, *bytes.Buffer) {
	t.Helper()
	c := Builder(t).WithObjects(objs...).Build()
	log := &bytes.Buffer{}
	return stepenv.Env{Client: c, Namespace: Namespace, Results: &stepenv.Results{Values: map[string]string{}}, Log: log}, log
}

// Unsetenv removes the variables for the test, restoring them afterwards.
func Unsetenv(t *testing.T, keys ...string) {
	t.Helper()
	for _, key := range keys {
		t.Setenv(key, "")
		require.NoError(t, os.Unsetenv(key))
	}
}

// UnsetOptionEnv removes the variables opts are read from, so that only
// what the test sets counts.
func UnsetOptionEnv(t *testing.T, opts []stepargs.Option) {
	t.Helper()
	for _, o := range opts {
		if o.Env != "" {
			Unsetenv(t, o.Env)
		}
	}
}

// Template decodes a Template from YAML.
func Template(t testing.TB, doc string) *templatev1.Template {
	t.Helper()
	tpl := &templatev1.Template{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), tpl))
	return tpl
}
