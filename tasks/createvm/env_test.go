package createvm

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// testEnv is a task environment on a fake cluster holding objs, in
// namespace "active".
func testEnv(t *testing.T, objs ...client.Object) (stepenv.Env, *bytes.Buffer) {
	t.Helper()
	s, err := scheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
	log := &bytes.Buffer{}
	return stepenv.Env{Client: c, Namespace: "active", Results: &stepenv.Results{Values: map[string]string{}}, Log: log}, log
}

// virtAPI records the requests a fake virt-api gets and answers code.
type virtAPI struct {
	mu    sync.Mutex
	paths []string
	code  int
}

func (v *virtAPI) requests() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.paths...)
}

// withVirtAPI points env's configuration at a fake virt-api answering code.
func withVirtAPI(t *testing.T, env *stepenv.Env, code int) *virtAPI {
	t.Helper()
	api := &virtAPI{code: code}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.mu.Lock()
		api.paths = append(api.paths, r.Method+" "+r.URL.Path)
		api.mu.Unlock()
		if api.code == http.StatusAccepted {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(api.code)
		_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"virt-api says no","code":%d}`, api.code)
	}))
	t.Cleanup(srv.Close)
	env.Config = &rest.Config{Host: srv.URL}
	return api
}

func params(strings map[string]string) stepenv.Params {
	return stepenv.Params{Strings: strings}
}

// unsetenv removes key for the test, restoring it afterwards.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "")
	require.NoError(t, os.Unsetenv(key))
}
