package csi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// requireRoot skips tests that bind-mount, which needs CAP_SYS_ADMIN.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
}

// shortTempDir is used instead of t.TempDir because unix socket paths are
// limited to 108 bytes and t.TempDir embeds the long test name. Cleanup
// detaches mounts a failed test left behind, so RemoveAll cannot walk into a
// mounted volume or fail with EBUSY.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "csi")
	require.NoError(t, err)
	dir, err = filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	t.Cleanup(func() {
		detachMountsUnder(t, dir)
		require.NoError(t, os.RemoveAll(dir))
	})
	return dir
}

func detachMountsUnder(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(mountInfoPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := len(lines) - 1; i >= 0; i-- { // innermost mounts are listed last
		e, err := parseMountInfoLine(lines[i])
		require.NoError(t, err)
		if strings.HasPrefix(e.mountPoint, dir+"/") {
			_ = unix.Unmount(e.mountPoint, unix.MNT_DETACH)
		}
	}
}

// newTestDriver returns a driver with pools "fast" and "slow" under a fresh
// temporary directory.
func newTestDriver(t *testing.T) (*Driver, string) {
	t.Helper()
	base := shortTempDir(t)
	d, err := NewDriver(Config{
		NodeName: "node-a",
		Pools: map[string]string{
			"fast": filepath.Join(base, "fast"),
			"slow": filepath.Join(base, "slow"),
		},
		Version: "test",
	})
	require.NoError(t, err)
	return d, base
}
