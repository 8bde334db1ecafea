package createvm

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

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
