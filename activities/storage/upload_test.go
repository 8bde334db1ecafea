package storage

import (
	"bytes"
	"crypto/ed25519"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/uploadtoken"
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

// uploadKeys is cdi-apiserver's signing key for the tests.
func uploadKeys(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	return pub, priv
}

func uploadToken(t *testing.T, key ed25519.PrivateKey, ns, name string) string {
	tok, err := uploadtoken.Issue(key, ns, name, time.Now(), uploadtoken.TTL)
	require.NoError(t, err)
	return tok
}

func newUploadServer(t *testing.T, size int64) (*uploadServer, *httptest.Server, string, string) {
	vol := t.TempDir()
	pub, priv := uploadKeys(t)
	u := &uploadServer{a: &Activities{DiskUID: diskOwner, DiskGID: diskOwner},
		req:  cdi.ImportRequest{VolumeDir: vol, Size: size, Key: "upload-test"},
		auth: uploadAuth{key: pub, namespace: "tenant", name: "upload"}, done: make(chan uploadOutcome, 1)}
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	return u, srv, filepath.Join(vol, cdi.DiskFileName), uploadToken(t, priv, "tenant", "upload")
}

// post sends body to an upload server with token (none when empty).
func post(t *testing.T, url, token string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+cdi.UploadPath, bytes.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", uploadtoken.Bearer(token))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// Every format a user may upload lands as the raw disk, grown to the
// requested size.
func TestUploadWritesEveryFormatAsRaw(t *testing.T) {
	dir, raw := sourceImages(t)
	for _, name := range []string{"disk.raw", "disk.qcow2", "qcow2-gz", "raw-xz"} {
		u, srv, disk, token := newUploadServer(t, 8<<20)
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, post(t, srv.URL, token, data), name)
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
	u, srv, _, token := newUploadServer(t, 1<<20)
	data, err := os.ReadFile(filepath.Join(dir, "disk.raw"))
	require.NoError(t, err)
	require.Equal(t, http.StatusBadRequest, post(t, srv.URL, token, data))
	out := <-u.done
	var app *temporal.ApplicationError
	require.ErrorAs(t, out.err, &app)
	require.Equal(t, cdi.ErrTypeTargetTooSmall, app.Type())
	require.True(t, strings.HasPrefix(app.Message(), "Virtual image size is larger than the reported available storage"))
}

// A body cut short is not a disk: the server answers with an error and
// waits for the next attempt.
func TestTruncatedUploadIsNotTakenForADisk(t *testing.T) {
	u, srv, _, token := newUploadServer(t, 8<<20)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	_, err = conn.Write([]byte("POST " + cdi.UploadPath + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
		"\r\nContent-Length: 4194304\r\n\r\n" + strings.Repeat("a", 1<<20)))
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool { return !u.busy.Load() && u.received.Load() == 1<<20 }, 5e9, 1e7)
	select {
	case out := <-u.done:
		t.Fatalf("a truncated upload ended the activity: %+v", out)
	default:
	}
}
