//go:build integration

package integration

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Markers the test guest prints (hack/mkguest.sh).
const (
	guestReady  = "VIRTFLOW-GUEST-READY"
	guestDiskOK = "VIRTFLOW-DISK-OK"
	guestImage  = "registry.virtflow.local/virtflow/test-guest:latest"
)

var (
	storeOnce sync.Once
	storeDir  string
	storeErr  error
)

// imageStore builds the test guest once and lays it out as the local image
// guestImage, readable by the unprivileged qemu.
func imageStore(t *testing.T) string {
	t.Helper()
	storeOnce.Do(func() {
		out, err := exec.Command("../hack/mkguest.sh").Output()
		if err != nil {
			storeErr = err
			return
		}
		guest := strings.TrimSpace(string(out))
		storeDir = filepath.Join(env.dir, "images")
		name, tag, _ := strings.Cut(guestImage[strings.LastIndex(guestImage, "/")+1:], ":")
		img := filepath.Join(storeDir, filepath.FromSlash(guestImage[:strings.LastIndex(guestImage, "/")]), name, tag)
		// alt/disk.raw is reached only through a containerDisk's path.
		for _, f := range [][2]string{{"vmlinuz", "boot/vmlinuz"}, {"initramfs.img", "boot/initramfs.img"}, {"disk.raw", "disk/disk.raw"}, {"disk.raw", "alt/disk.raw"}} {
			src, dst := f[0], f[1]
			if storeErr = copyFile(filepath.Join(guest, src), filepath.Join(img, dst)); storeErr != nil {
				return
			}
		}
		storeErr = chmodTree(env.dir)
	})
	require.NoError(t, storeErr)
	return storeDir
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	_, err = io.Copy(out, in)
	return err
}

// chmodTree makes the test directories traversable by the guest's uid.
func chmodTree(root string) error {
	return filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.IsDir() {
			return err
		}
		return os.Chmod(p, 0o755)
	})
}

// waitForText waits until the file contains text.
func waitForText(t *testing.T, path, text string, timeout time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool {
		data, _ := os.ReadFile(path)
		return strings.Contains(string(data), text)
	}, timeout, 100*time.Millisecond, "%s never showed %q", path, text)
}
