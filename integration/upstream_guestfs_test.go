//go:build integration

package integration

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// TestUpstreamVirtctlGuestfsOpensAClaim runs upstream's `virtctl guestfs`
// on an imported claim: virt-api names the libguestfs-tools image the node
// imported, virtctl starts its pod (without KVM, as this machine's is not
// usable) as the launchers' user, who owns the imported disk, and attaches
// to its shell, where guestfish reads a file inside the disk's filesystem.
func TestUpstreamVirtctlGuestfsOpensAClaim(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	s.create(s.importDV("gfs", serveGuestDisk(t, n.guest), "64Mi", true))
	s.waitDVPhase("gfs", cdiv1.Succeeded, 2*time.Minute)
	u := newUpstreamVirtctl(t, n.kubeconfig, s.ns)
	cmd := u.command("guestfs", "gfs", "--kvm=false")
	// virtctl ends its attach when its input ends: the input stays open
	// until the shell has answered, then exit ends the pod.
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	_, err = io.WriteString(stdin, "guestfish --ro -a /disk/disk.img -m /dev/sda cat /virtflow-disk.txt\n")
	require.NoError(t, err)
	read := assert.Eventually(t, func() bool { return strings.Count(out.String(), guestDiskOK) > 0 },
		8*time.Minute, time.Second, "guestfish did not read the file inside the claim's disk")
	_, _ = io.WriteString(stdin, "exit\n")
	time.Sleep(time.Second)
	_ = stdin.Close()
	_ = cmd.Wait()
	require.True(t, read, "%s", out.String())
	require.Contains(t, out.String(), "Use image: virtflow.local/libguestfs-tools:latest")
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(s.c.Get(context.Background(), s.key("libguestfs-tools-gfs"), &corev1.Pod{}))
	}, time.Minute, time.Second, "virtctl removes its pod when the shell ends")
}

// syncBuffer is a bytes.Buffer a command writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
