//go:build integration && bench

package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const readyMarker = "VIRTFLOW-GUEST-READY"

// TestBenchNode compares booting the test guest in a real pod with booting
// the same QEMU command as the same user on the bare host, and weighs the
// node stack's memory against QEMU's. It reports numbers and asserts only
// that every guest booted.
func TestBenchNode(t *testing.T) {
	base, disk := launcherBase(t), pushTestGuest(t)
	guestDir := bareGuestDir(t)
	runs, _ := strconv.Atoi(os.Getenv("BENCH_RUNS"))
	if runs < 1 {
		runs = 3
	}
	var inPod, bare []time.Duration
	for i := range runs {
		bare = append(bare, bareBoot(t, guestDir))
		name := fmt.Sprintf("bench-boot-%d", i)
		inPod = append(inPod, podBoot(t, name, base, disk))
		deletePod(name)
	}
	fmt.Printf("\n%-48s %10s %10s %7s\n", "path", "pod", "bare qemu", "ratio")
	fmt.Printf("%-48s %10s %10s %6.2fx  (median of %d)\n", "create → guest boot marker (TCG)",
		median(inPod).Round(time.Millisecond), median(bare).Round(time.Millisecond), float64(median(inPod))/float64(median(bare)), runs)
	memory(t, base, disk, 3)
}

// bareGuestDir lays the guest out as the image volume does, readable by
// the unprivileged user.
func bareGuestDir(t *testing.T) string {
	out, err := exec.Command("../../hack/mkguest.sh").Output()
	require.NoError(t, err)
	src := strings.TrimSpace(string(out))
	dir, err := os.MkdirTemp("/var/tmp", "virtflow-bench-guest-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	for file, rel := range map[string]string{"vmlinuz": "boot/vmlinuz", "initramfs.img": "boot/initramfs.img", "disk.raw": "disk/disk.raw"} {
		data, err := os.ReadFile(filepath.Join(src, file))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), data, 0o444))
	}
	return dir
}

func bareBoot(t *testing.T, dir string) time.Duration {
	args := append([]string{"--reuid", "65534", "--regid", "65534", "--clear-groups"}, guestQEMU(dir)...)
	cmd := exec.Command("setpriv", args...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	require.True(t, waitMarker(stdout), "the bare guest booted")
	return time.Since(start)
}

// podBoot creates a guest pod and follows its log to the marker; the pod
// stays.
func podBoot(t *testing.T, name, base, disk string) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	_, err := env.cs.CoreV1().Pods("default").Create(ctx, guestPod(name, base, disk), metav1.CreateOptions{})
	require.NoError(t, err)
	for {
		stream, err := env.cs.CoreV1().Pods("default").GetLogs(name, &corev1.PodLogOptions{Follow: true}).Stream(ctx)
		if err == nil {
			ok := waitMarker(stream)
			stream.Close()
			// A followed log can end early (seen here right before the
			// marker); the whole log then says.
			for !ok && ctx.Err() == nil {
				raw, _ := env.cs.CoreV1().Pods("default").GetLogs(name, &corev1.PodLogOptions{}).DoRaw(ctx)
				if ok = strings.Contains(string(raw), readyMarker); !ok {
					time.Sleep(20 * time.Millisecond)
				}
			}
			require.True(t, ok, "the guest in %s booted", name)
			return time.Since(start)
		}
		require.NoError(t, ctx.Err(), "no log for %s: %v", name, err)
		time.Sleep(20 * time.Millisecond)
	}
}

func waitMarker(r io.Reader) bool {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if strings.Contains(sc.Text(), readyMarker) {
			return true
		}
	}
	return false
}

func deletePod(name string) {
	grace := int64(0)
	_ = env.cs.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
