package subresources

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
)

func TestStartAndStop(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, r.Method+" "+r.URL.Path+" "+string(body))
		mu.Unlock()
		if r.URL.Path == "/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm/stop" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,` +
				`"message":"Operation cannot be fulfilled on virtualmachine.kubevirt.io \"vm\": VM is not running"}`))
		}
	}))
	defer srv.Close()
	c, err := NewClient(&rest.Config{Host: srv.URL})
	require.NoError(t, err)

	require.NoError(t, c.Start(context.Background(), "ns", "vm"))
	err = c.Stop(context.Background(), "ns", "vm")
	assert.True(t, apierrors.IsConflict(err), "%v", err)
	assert.EqualError(t, err, `Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm": VM is not running`)
	assert.Equal(t, []string{
		"PUT /apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm/start {}",
		"PUT /apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm/stop {}",
	}, calls)
}
