package storage

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/require"
)

// testQcow2 makes a small real qcow2 with 1 MiB of data in it.
func testQcow2(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.qcow2")
	out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", p, "4M").CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command("qemu-io", "-f", "qcow2", "-c", "write -P 0xab 0 1M", p).CombinedOutput()
	require.NoError(t, err, string(out))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// tarLayer is a layer holding files, in order, by tar path.
func tarLayer(t *testing.T, files ...tarFile) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg}))
		_, err := tw.Write(f.data)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	l, err := tarball.LayerFromReader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	return l
}

type tarFile struct {
	name string
	data []byte
}

// testRegistry serves an in-memory registry, behind wrap when set, over
// TLS when tlsOn.
func testRegistry(t *testing.T, tlsOn bool, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	// The untrusted-certificate case makes the server log handshake
	// failures; they are expected.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if tlsOn {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

// push writes an image of layers (bottom first) to srv as repo:tag and
// returns its docker:// URL.
func push(t *testing.T, srv *httptest.Server, repoTag string, layers []v1.Layer, opts ...remote.Option) string {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://")
	img, err := mutate.AppendLayers(empty.Image, layers...)
	require.NoError(t, err)
	ref, err := name.ParseReference(host+"/"+repoTag, name.Insecure)
	require.NoError(t, err)
	opts = append(opts, remote.WithTransport(srv.Client().Transport))
	require.NoError(t, remote.Write(ref, img, opts...))
	return "docker://" + host + "/" + repoTag
}

func TestFetchRegistryDisk(t *testing.T) {
	qcow := testQcow2(t)
	srv := testRegistry(t, false, nil)
	base := tarLayer(t, tarFile{"etc/motd", []byte("hello")})
	url := push(t, srv, "vm/disk:v1", []v1.Layer{base, tarLayer(t, tarFile{"disk/disk.qcow2", qcow})})
	src := RegistrySource{URL: url, Insecure: true}
	ctx := context.Background()

	p, digest, err := FetchRegistryDisk(ctx, src, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, "disk.qcow2", filepath.Base(p))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.True(t, bytes.Equal(qcow, got), "extracted disk differs from the pushed one")
	require.True(t, strings.HasPrefix(digest, "sha256:"), digest)
	polled, err := RegistryDigest(ctx, src)
	require.NoError(t, err)
	require.Equal(t, digest, polled)
}

func TestFetchRegistryDiskLowerLayerDotPath(t *testing.T) {
	srv := testRegistry(t, false, nil)
	raw := make([]byte, 4<<20)
	copy(raw[1<<20:], "boot sector somewhere")
	top := tarLayer(t, tarFile{"etc/motd", []byte("top")})
	url := push(t, srv, "vm/raw:v1", []v1.Layer{tarLayer(t, tarFile{"./disk/disk.img", raw}), top})

	p, _, err := FetchRegistryDisk(context.Background(), RegistrySource{URL: url, Insecure: true}, t.TempDir())
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.True(t, bytes.Equal(raw, got), "extracted disk differs from the pushed one")
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(p, &st))
	require.Less(t, st.Blocks*512, int64(len(raw))/2, "zero blocks were written, not skipped")
}

func TestFetchRegistryDiskTopLayerWins(t *testing.T) {
	srv := testRegistry(t, false, nil)
	url := push(t, srv, "vm/two:v1", []v1.Layer{
		tarLayer(t, tarFile{"disk/old.img", []byte("old")}),
		tarLayer(t, tarFile{"disk/.wh.old.img", nil}, tarFile{"disk/new.img", []byte("new")}),
	})
	p, _, err := FetchRegistryDisk(context.Background(), RegistrySource{URL: url, Insecure: true}, t.TempDir())
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
}

func TestFetchRegistryDiskMissingTag(t *testing.T) {
	srv := testRegistry(t, false, nil)
	url := push(t, srv, "vm/disk:v1", []v1.Layer{tarLayer(t, tarFile{"disk/d.img", []byte("x")})})
	missing := RegistrySource{URL: strings.TrimSuffix(url, ":v1") + ":nope", Insecure: true}

	_, _, err := FetchRegistryDisk(context.Background(), missing, t.TempDir())
	require.ErrorIs(t, err, ErrSourceUnreachable)
	require.Contains(t, err.Error(), "unable to pull image "+missing.URL)
	require.Contains(t, err.Error(), "MANIFEST_UNKNOWN")
	_, err = RegistryDigest(context.Background(), missing)
	require.ErrorIs(t, err, ErrSourceUnreachable)
	require.Contains(t, err.Error(), "MANIFEST_UNKNOWN")
}

func TestFetchRegistryDiskNoDisk(t *testing.T) {
	srv := testRegistry(t, false, nil)
	url := push(t, srv, "app:v1", []v1.Layer{tarLayer(t, tarFile{"bin/app", []byte("#!/bin/sh")}, tarFile{"diskette/x.img", []byte("x")})})

	_, _, err := FetchRegistryDisk(context.Background(), RegistrySource{URL: url, Insecure: true}, t.TempDir())
	require.ErrorIs(t, err, ErrUnsupportedImage)
	require.Contains(t, err.Error(), "image "+url+" has no disk under /disk/")
}

func TestRegistryBasicAuth(t *testing.T) {
	srv := testRegistry(t, false, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "s3cret" {
				w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	url := push(t, srv, "vm/disk:v1", []v1.Layer{tarLayer(t, tarFile{"disk/d.img", []byte("disk")})},
		remote.WithAuth(&authn.Basic{Username: "alice", Password: "s3cret"}))
	ctx := context.Background()

	for _, src := range []RegistrySource{
		{URL: url, Insecure: true},
		{URL: url, Insecure: true, Username: "alice", Password: "wrong"},
	} {
		_, _, err := FetchRegistryDisk(ctx, src, t.TempDir())
		require.ErrorIs(t, err, ErrSourceUnreachable)
		require.Contains(t, err.Error(), "401 Unauthorized")
		_, err = RegistryDigest(ctx, src)
		require.ErrorIs(t, err, ErrSourceUnreachable)
	}
	src := RegistrySource{URL: url, Insecure: true, Username: "alice", Password: "s3cret"}
	p, digest, err := FetchRegistryDisk(ctx, src, t.TempDir())
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "disk", string(got))
	polled, err := RegistryDigest(ctx, src)
	require.NoError(t, err)
	require.Equal(t, digest, polled)
}

func TestFetchRegistryDiskTLS(t *testing.T) {
	srv := testRegistry(t, true, nil)
	url := push(t, srv, "vm/disk:v1", []v1.Layer{tarLayer(t, tarFile{"disk/d.img", []byte("tls disk")})})
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	ctx := context.Background()

	p, digest, err := FetchRegistryDisk(ctx, RegistrySource{URL: url, CACert: ca}, t.TempDir())
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "tls disk", string(got))
	polled, err := RegistryDigest(ctx, RegistrySource{URL: url, CACert: ca})
	require.NoError(t, err)
	require.Equal(t, digest, polled)

	_, err = RegistryDigest(ctx, RegistrySource{URL: url})
	require.ErrorIs(t, err, ErrSourceUnreachable, "an untrusted certificate must be refused")
	_, err = RegistryDigest(ctx, RegistrySource{URL: url, CACert: []byte("not pem")})
	require.ErrorIs(t, err, ErrSourceUnreachable)
}

func TestRegistryInvalidURL(t *testing.T) {
	for _, u := range []string{"", "http://example.com/vm:v1", "example.com/vm:v1", "docker://", "docker://Example.com/VM:v1"} {
		_, err := RegistryDigest(context.Background(), RegistrySource{URL: u})
		require.ErrorIs(t, err, ErrInvalidSource, u)
		_, _, err = FetchRegistryDisk(context.Background(), RegistrySource{URL: u}, t.TempDir())
		require.ErrorIs(t, err, ErrInvalidSource, u)
	}
}
