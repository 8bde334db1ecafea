package liveness

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// identity is a driver whose readiness the test sets.
type identity struct {
	csi.UnimplementedIdentityServer
	ready *wrapperspb.BoolValue
}

func (i *identity) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{Ready: i.ready}, nil
}

func serve(t *testing.T, id *identity) string {
	dir, err := os.MkdirTemp("", "probe")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "csi.sock")
	l, err := net.Listen("unix", path)
	require.NoError(t, err)
	srv := grpc.NewServer()
	csi.RegisterIdentityServer(srv, id)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return "unix://" + path
}

func get(t *testing.T, h http.Handler) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	return rec.Code, rec.Body.String()
}

func TestHealthzFollowsTheDriversProbe(t *testing.T) {
	id := &identity{}
	c := Checker{Address: serve(t, id)}
	code, _ := get(t, c.Handler())
	require.Equal(t, http.StatusOK, code, "an unset Ready means ready")

	id.ready = wrapperspb.Bool(false)
	code, body := get(t, c.Handler())
	require.Equal(t, http.StatusInternalServerError, code)
	require.Contains(t, body, "is not ready")

	id.ready = wrapperspb.Bool(true)
	code, _ = get(t, c.Handler())
	require.Equal(t, http.StatusOK, code)
}

func TestHealthzFailsWhenTheDriverIsGone(t *testing.T) {
	c := Checker{Address: filepath.Join(t.TempDir(), "missing.sock")}
	code, body := get(t, c.Handler())
	require.Equal(t, http.StatusInternalServerError, code)
	require.Contains(t, body, "probing the CSI driver")
}
