package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stallingServer serves data, except that while stall is set a range
// request starting at or past from never gets its body: the connection
// stays open and silent, as a source that stops sending mid-transfer.
func stallingServer(t *testing.T, data []byte, from int64, stall *atomic.Bool) *httptest.Server {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if start, ok := rangeStart(r.Header.Get("Range")); ok && start >= from && stall.Load() {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)-int(start)))
			w.WriteHeader(http.StatusPartialContent)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		http.ServeContent(w, r, "disk.raw", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func rangeStart(h string) (int64, bool) {
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.SplitN(spec, "-", 2)[0], 10, 64)
	return n, err == nil
}

// A source that stops sending ends the copy with a StallError after the
// stall timeout, instead of holding it forever; once it sends again, a
// copy resumed from the checkpoint completes with the source's bytes.
func TestAStalledSourceEndsTheAttemptAndAResumeCompletes(t *testing.T) {
	data := make([]byte, 96<<20)
	_, err := rand.Read(data)
	require.NoError(t, err)
	var stall atomic.Bool
	stall.Store(true)
	srv := stallingServer(t, data, 80<<20, &stall)
	dst := filepath.Join(t.TempDir(), "disk.img")

	var checkpoint int64
	start := time.Now()
	_, err = Import(context.Background(), Source{URL: srv.URL + "/disk.raw"}, dst, ImportOptions{Cache: "writeback",
		StallTimeout: 2 * time.Second, Checkpoint: func(off int64) { checkpoint = off }})
	var stalled *StallError
	require.True(t, errors.As(err, &stalled), "a StallError, got %v", err)
	require.Less(t, time.Since(start), time.Minute, "the stall is noticed, not waited out")
	require.Equal(t, 2*time.Second, stalled.Timeout)
	require.GreaterOrEqual(t, stalled.Offset, checkpoint, "it stalled past the last checkpoint")
	require.Equal(t, int64(minChunk), checkpoint, "the first chunk was written before the source stalled")

	stall.Store(false)
	_, err = Import(context.Background(), Source{URL: srv.URL + "/disk.raw"}, dst, ImportOptions{Cache: "writeback",
		StallTimeout: 2 * time.Second, From: checkpoint})
	require.NoError(t, err)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "the resumed disk holds the source's bytes")
}

// A source that answers nothing from the start stalls the probe, which
// the stall timeout bounds too.
func TestASourceSilentFromTheStartStalls(t *testing.T) {
	var stall atomic.Bool
	stall.Store(true)
	srv := stallingServer(t, make([]byte, 1<<20), 0, &stall)
	_, err := Import(context.Background(), Source{URL: srv.URL + "/disk.raw"}, filepath.Join(t.TempDir(), "disk.img"),
		ImportOptions{Cache: "writeback", StallTimeout: time.Second, From: 4096})
	var stalled *StallError
	require.True(t, errors.As(err, &stalled), "a StallError, got %v", err)
	require.Equal(t, int64(4096), stalled.Offset, "it stalled where the copy would have resumed")
}
