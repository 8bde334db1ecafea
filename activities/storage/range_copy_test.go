package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingServer serves dir and counts the body bytes it sent.
func countingServer(t *testing.T, dir string) (*httptest.Server, *atomic.Int64) {
	var sent atomic.Int64
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files.ServeHTTP(countingWriter{w, &sent}, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &sent
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.ResponseWriter.Write(p)
}

// A copy cut after its first checkpoint resumes there: the result equals
// a straight conversion, and the resumed run does not fetch the data of the
// chunk already written.
func TestImportResumesFromCheckpoint(t *testing.T) {
	dir := t.TempDir()
	raw := make([]byte, 160<<20)
	_, err := rand.Read(raw[8<<20 : 40<<20])
	require.NoError(t, err)
	_, err = rand.Read(raw[100<<20 : 104<<20])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "disk.raw"), raw, 0o644))
	out, err := exec.Command("qemu-img", "convert", "-f", "raw", "-O", "qcow2", filepath.Join(dir, "disk.raw"), filepath.Join(dir, "disk.qcow2")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	srv, sent := countingServer(t, dir)
	dst := filepath.Join(t.TempDir(), "disk.img")

	ctx, cancel := context.WithCancel(context.Background())
	var checkpoint int64
	_, err = Import(ctx, Source{URL: srv.URL + "/disk.qcow2"}, dst, ImportOptions{Cache: "writeback",
		Checkpoint: func(off int64) { checkpoint = off; cancel() }})
	require.Error(t, err, "the copy stopped at its first checkpoint")
	require.Equal(t, int64(minChunk), checkpoint)

	sent.Store(0)
	_, err = Import(context.Background(), Source{URL: srv.URL + "/disk.qcow2"}, dst, ImportOptions{Cache: "writeback", From: checkpoint})
	require.NoError(t, err)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.True(t, bytes.Equal(raw, got), "the resumed disk holds the source's bytes")
	require.Less(t, sent.Load(), int64(16<<20), "the resumed run fetched only the rest (4 MiB of data and metadata)")
}

func TestNextChunkFollowsTheRate(t *testing.T) {
	require.Equal(t, int64(minChunk), nextChunk(minChunk, 10e9, 3e9), "a slow source keeps small chunks")
	require.Equal(t, int64(192<<20), nextChunk(64<<20, 1e9, 3e9))
	require.Equal(t, int64(maxChunk), nextChunk(1<<30, 1e6, 3e9), "chunks are bounded")
}
