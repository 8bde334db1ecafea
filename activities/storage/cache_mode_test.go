package storage

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The chosen mode must be one qemu-img can write with in that directory,
// on whatever filesystems this machine has.
func TestCacheModeIsOneQemuImgCanWriteWith(t *testing.T) {
	dirs := []string{t.TempDir()}
	if shm, err := os.MkdirTemp("/dev/shm", "virtflow-"); err == nil {
		defer os.RemoveAll(shm)
		dirs = append(dirs, shm)
	}
	for _, dir := range dirs {
		mode := CacheModeFor(dir)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "the probe leaves nothing behind")
		src := filepath.Join(dir, "src.qcow2")
		out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", src, "8M").CombinedOutput()
		require.NoError(t, err, "%s", out)
		out, err = exec.Command("qemu-img", "convert", "-t", mode, "-f", "qcow2", "-O", "raw", src, filepath.Join(dir, "dst.img")).CombinedOutput()
		require.NoError(t, err, "cache=%s in %s: %s", mode, dir, out)
	}
	require.Equal(t, "writeback", CacheModeFor("/nonexistent/dir"), "unknown storage gets the safe mode")
}
