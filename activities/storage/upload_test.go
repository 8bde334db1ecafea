package storage

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// diskOwner stands for the launchers' user, who is handed finished disks.
const diskOwner = 65534

func requireOwnedBy(t *testing.T, path string, uid int) {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	sys := st.Sys().(*syscall.Stat_t)
	require.Equal(t, []uint32{uint32(uid), uint32(uid)}, []uint32{sys.Uid, sys.Gid}, "%s is handed to the launchers' user", path)
}

func newUploadServer(t *testing.T, size int64) (*uploadServer, *httptest.Server, string) {
	vol := t.TempDir()
	u := &uploadServer{a: &Activities{DiskUID: diskOwner, DiskGID: diskOwner},
		req: cdi.ImportRequest{VolumeDir: vol, Size: size, Key: "upload-test"}, done: make(chan uploadOutcome, 1)}
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	return u, srv, filepath.Join(vol, cdi.DiskFileName)
}

// Every format a user may upload lands as the raw disk, grown to the
// requested size.
func TestUploadWritesEveryFormatAsRaw(t *testing.T) {
	dir, raw := sourceImages(t)
	for _, name := range []string{"disk.raw", "disk.qcow2", "qcow2-gz", "raw-xz"} {
		u, srv, disk := newUploadServer(t, 8<<20)
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		resp, err := http.Post(srv.URL+cdi.UploadPath, "application/octet-stream", bytes.NewReader(data))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, name)
		out := <-u.done
		require.NoError(t, out.err, name)
		got, err := os.ReadFile(disk)
		require.NoError(t, err)
		require.Len(t, got, 8<<20, name)
		require.True(t, bytes.Equal(raw, got[:len(raw)]), "%s: the disk holds the image's bytes", name)
		require.Equal(t, int64(len(data)), u.received.Load(), "%s: received bytes are counted", name)
		requireOwnedBy(t, disk, diskOwner)
	}
}

func TestUploadTooLargeEndsWithTheReason(t *testing.T) {
	dir, _ := sourceImages(t)
	u, srv, _ := newUploadServer(t, 1<<20)
	data, err := os.ReadFile(filepath.Join(dir, "disk.raw"))
	require.NoError(t, err)
	resp, err := http.Post(srv.URL+cdi.UploadPath, "application/octet-stream", bytes.NewReader(data))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	out := <-u.done
	var app *temporal.ApplicationError
	require.ErrorAs(t, out.err, &app)
	require.Equal(t, cdi.ErrTypeTargetTooSmall, app.Type())
	require.True(t, strings.HasPrefix(app.Message(), "Virtual image size is larger than the reported available storage"))
}

// A body cut short is not a disk: the server answers with an error and
// waits for the next attempt.
func TestTruncatedUploadIsNotTakenForADisk(t *testing.T) {
	u, srv, _ := newUploadServer(t, 8<<20)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	_, err = conn.Write([]byte("POST " + cdi.UploadPath + " HTTP/1.1\r\nHost: x\r\nContent-Length: 4194304\r\n\r\n" + strings.Repeat("a", 1<<20)))
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool { return !u.busy.Load() && u.received.Load() == 1<<20 }, 5e9, 1e7)
	select {
	case out := <-u.done:
		t.Fatalf("a truncated upload ended the activity: %+v", out)
	default:
	}
}
