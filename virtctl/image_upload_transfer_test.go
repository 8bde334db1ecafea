package virtctl

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// writeImage writes size random bytes to a temporary image file.
func writeImage(t *testing.T, size int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	_, _ = rand.Read(data)
	p := filepath.Join(t.TempDir(), "disk.qcow2")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p, data
}

// received is what a fake upload proxy saw.
type received struct {
	mu                      sync.Mutex
	path, auth, contentType string
	contentLength           int64
	body                    []byte
	requests                int
}

// fakeProxy is a TLS upload proxy accepting only "Bearer tok".
func fakeProxy(t *testing.T) (*httptest.Server, *received) {
	t.Helper()
	got := &received{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.mu.Lock()
		defer got.mu.Unlock()
		got.requests++
		got.path, got.auth, got.contentType, got.contentLength = r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.ContentLength
		if got.auth != "Bearer tok" {
			http.Error(w, "invalid token", http.StatusUnauthorized)
			return
		}
		got.body, _ = io.ReadAll(r.Body)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-CA case fails handshakes on purpose
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, got
}

func serverCA(srv *httptest.Server) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

func TestUploadStreamsTheImageToTheProxy(t *testing.T) {
	srv, got := fakeProxy(t)
	img, data := writeImage(t, 3<<20+17)
	client, err := uploadHTTPClient(serverCA(srv), false)
	require.NoError(t, err)
	var bar bytes.Buffer
	require.NoError(t, upload(context.Background(), client, srv.URL, "tok", img, &bar))
	require.Equal(t, "/v1beta1/upload", got.path)
	require.Equal(t, "Bearer tok", got.auth)
	require.Equal(t, "application/octet-stream", got.contentType)
	require.Equal(t, int64(len(data)), got.contentLength, "a known length, not chunked")
	require.True(t, bytes.Equal(data, got.body), "the body must arrive byte-identical")
	require.Contains(t, bar.String(), "100%")
	require.True(t, strings.HasSuffix(bar.String(), "\n"))
}

func TestUploadReportsProxyRefusalAsUpstream(t *testing.T) {
	srv, _ := fakeProxy(t)
	img, _ := writeImage(t, 1024)
	client, err := uploadHTTPClient(serverCA(srv), false)
	require.NoError(t, err)
	err = upload(context.Background(), client, srv.URL, "stale", img, io.Discard)
	require.EqualError(t, err, "unexpected return value 401, invalid token")
}

func TestUploadTLSTrust(t *testing.T) {
	srv, got := fakeProxy(t)
	img, _ := writeImage(t, 1024)

	client, err := uploadHTTPClient("", false)
	require.NoError(t, err)
	err = upload(context.Background(), client, srv.URL, "tok", img, io.Discard)
	require.ErrorContains(t, err, "certificate", "a self-signed proxy is not trusted by default")
	require.Zero(t, got.requests)

	client, err = uploadHTTPClient("", true)
	require.NoError(t, err)
	require.NoError(t, upload(context.Background(), client, srv.URL, "tok", img, io.Discard), "--insecure skips verification")

	client, err = uploadHTTPClient(serverCA(srv), false)
	require.NoError(t, err)
	require.NoError(t, upload(context.Background(), client, srv.URL, "tok", img, io.Discard), "the CDIConfig CA is trusted")

	_, err = uploadHTTPClient("not a certificate", false)
	require.ErrorContains(t, err, "holds no PEM certificate")
}

func TestUploadEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"https://proxy:8443":            "https://proxy:8443/v1beta1/upload",
		"https://proxy/":                "https://proxy/v1beta1/upload",
		"https://lb/cdi":                "https://lb/cdi/v1beta1/upload",
		"https://proxy/v1beta1/upload":  "https://proxy/v1beta1/upload",
		"https://proxy/v1alpha1/upload": "https://proxy/v1alpha1/upload",
	} {
		got, err := uploadEndpoint(in)
		require.NoError(t, err)
		require.Equal(t, want, got, in)
	}
}

// fakeClock advances by step on every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

var percent = regexp.MustCompile(`(\d+)%`)

func drawnPercents(t *testing.T, out string) []int {
	t.Helper()
	var pcts []int
	for _, frame := range strings.Split(out, "\r")[1:] {
		m := percent.FindStringSubmatch(frame)
		require.NotNil(t, m, "frame %q", frame)
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		pcts = append(pcts, n)
	}
	return pcts
}

func readAllInChunks(t *testing.T, p *progressReader, chunk int) {
	t.Helper()
	buf := make([]byte, chunk)
	for {
		_, err := p.Read(buf)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	p.finish()
}

func TestProgressReaderReportsMonotonicallyToHundredPercent(t *testing.T) {
	data := make([]byte, 100_000)
	var out bytes.Buffer
	p := newProgressReader(bytes.NewReader(data), int64(len(data)), &out)
	clock := &fakeClock{t: time.Unix(0, 0), step: 250 * time.Millisecond}
	p.now = clock.now
	readAllInChunks(t, p, 3_000)

	pcts := drawnPercents(t, out.String())
	require.Greater(t, len(pcts), 30, "every read is 250ms apart, so each one redraws")
	for i := 1; i < len(pcts); i++ {
		require.GreaterOrEqual(t, pcts[i], pcts[i-1], "progress went backwards: %v", pcts)
	}
	require.Equal(t, 100, pcts[len(pcts)-1])
	require.Contains(t, out.String(), "97.7 KiB / 97.7 KiB")
	require.True(t, strings.HasSuffix(out.String(), "\n"), "the bar ends its line")
}

func TestProgressReaderRedrawsAtMostFiveTimesASecond(t *testing.T) {
	data := make([]byte, 100_000)
	var out bytes.Buffer
	p := newProgressReader(bytes.NewReader(data), int64(len(data)), &out)
	clock := &fakeClock{t: time.Unix(0, 0), step: 10 * time.Millisecond}
	p.now = clock.now
	readAllInChunks(t, p, 1_000) // ~100 reads over ~1s

	pcts := drawnPercents(t, out.String())
	require.LessOrEqual(t, len(pcts), 1+6+1, "first draw, ~5 per second, the 100%% draw, the final draw")
	require.Equal(t, 100, pcts[len(pcts)-1])
}

func TestFormatBytes(t *testing.T) {
	require.Equal(t, "512 B", formatBytes(512))
	require.Equal(t, "1.5 KiB", formatBytes(1536))
	require.Equal(t, "64.0 MiB", formatBytes(64<<20))
	require.Equal(t, "2.0 GiB", formatBytes(2<<30))
}
