//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// TestUpstreamVirtctlVNCScreenshot saves a running guest's display with
// upstream's virtctl: a PNG of the display's size showing the console
// text, to a file or to stdout; a missing VMI is upstream's plain 500.
func TestUpstreamVirtctlVNCScreenshot(t *testing.T) {
	n := onNode(t)
	u := newUpstreamVirtctl(t, n.kubeconfig, n.namespace(t))
	vm := testGuestVM("shot", kubevirtv1.RunStrategyAlways)
	vm.Namespace = u.ns
	require.NoError(t, n.c.Create(context.Background(), vm))
	defer deleteVM(t, n.c, vm)
	runningVMI(t, n.c, crclient.ObjectKeyFromObject(vm))
	// Once the agent answers, the kernel has written its console.
	require.Eventually(t, func() bool { return u.command("guestosinfo", "shot").Run() == nil }, 2*time.Minute, time.Second,
		"the guest agent never answered")

	file := filepath.Join(t.TempDir(), "shot.png")
	u.run(t, "vnc", "screenshot", "shot", "-f", file)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	img := decodedPNG(t, data)
	w, h := vncFramebufferSize(t, u, "shot")
	require.Equal(t, image.Rect(0, 0, w, h), img.Bounds(), "the screenshot has the display's size")
	require.False(t, oneColour(img), "the display shows the guest's console, not a blank frame")

	out, err := u.command("vnc", "screenshot", "shot", "-f", "-", "--move-cursor").Output()
	require.NoError(t, err)
	require.Equal(t, img.Bounds(), decodedPNG(t, out).Bounds())

	failed, err := u.command("vnc", "screenshot", "nosuch", "-f", file).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(failed), "Can't access VMI nosuch: an error on the server")
	require.Contains(t, string(failed), `virtualmachineinstance.kubevirt.io \"nosuch\" not found`)
}

func decodedPNG(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err, "a PNG")
	return img
}

func oneColour(img image.Image) bool {
	b := img.Bounds()
	first := img.At(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}

// vncFramebufferSize is the display size the guest's VNC server announces
// in its ServerInit, reached through upstream virtctl's vnc proxy.
func vncFramebufferSize(t *testing.T, u upstreamVirtctl, name string) (int, int) {
	conn := dialUpstreamVNC(t, u, name)
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	w, h, err := rfbHandshake(conn)
	require.NoError(t, err)
	return w, h
}

// rfbHandshake speaks RFB 3.8 without authentication, as QEMU's display
// on its unix socket offers, up to the server's framebuffer size.
func rfbHandshake(conn io.ReadWriter) (int, int, error) {
	r := bufio.NewReader(conn)
	version := make([]byte, 12)
	if _, err := io.ReadFull(r, version); err != nil {
		return 0, 0, fmt.Errorf("reading the RFB version: %w", err)
	}
	if _, err := conn.Write([]byte("RFB 003.008\n")); err != nil {
		return 0, 0, err
	}
	count, err := r.ReadByte()
	if err != nil || count == 0 {
		return 0, 0, fmt.Errorf("the server offers no security type (%v)", err)
	}
	types := make([]byte, count)
	if _, err := io.ReadFull(r, types); err != nil || !bytes.Contains(types, []byte{1}) {
		return 0, 0, fmt.Errorf("the server does not offer security type None: %v (%v)", types, err)
	}
	// Security type None, then a shared ClientInit.
	if _, err := conn.Write([]byte{1}); err != nil {
		return 0, 0, err
	}
	result := make([]byte, 4)
	if _, err := io.ReadFull(r, result); err != nil || binary.BigEndian.Uint32(result) != 0 {
		return 0, 0, fmt.Errorf("security handshake failed: %v (%v)", result, err)
	}
	if _, err := conn.Write([]byte{1}); err != nil {
		return 0, 0, err
	}
	size := make([]byte, 4)
	if _, err := io.ReadFull(r, size); err != nil {
		return 0, 0, fmt.Errorf("reading ServerInit: %w", err)
	}
	return int(binary.BigEndian.Uint16(size[:2])), int(binary.BigEndian.Uint16(size[2:])), nil
}
