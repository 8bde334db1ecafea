package launcher

import (
	"bytes"
	"context"
	"image/png"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/libvirt/libvirtfake"
)

// serveFake serves a launcher of domain "dom" on a fake hypervisor and
// returns a client for it.
func serveFake(t *testing.T, vmi kubevirtv1.VirtualMachineInstance, running bool) *Client {
	t.Helper()
	hv := libvirtfake.New()
	if running {
		_, err := hv.Create(context.Background(), `<domain type="qemu"><name>dom</name><memory>1</memory></domain>`, false)
		require.NoError(t, err)
	}
	l := &launcher{cfg: Config{VMI: vmi, Dir: t.TempDir(), DomainType: domain.KVM}, hv: hv, name: "dom"}
	sock := filepath.Join(t.TempDir(), SocketFile)
	srv, err := serve(sock, l)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return NewClientAt(sock)
}

func TestScreenshotIsThePNGOfTheDisplay(t *testing.T) {
	img, err := serveFake(t, kubevirtv1.VirtualMachineInstance{}, true).Screenshot(context.Background())
	require.NoError(t, err)
	decoded, err := png.Decode(bytes.NewReader(img))
	require.NoError(t, err)
	require.Equal(t, 640, decoded.Bounds().Dx())
}

func TestScreenshotFailuresCarryTheReason(t *testing.T) {
	_, err := serveFake(t, kubevirtv1.VirtualMachineInstance{}, false).Screenshot(context.Background())
	require.ErrorContains(t, err, "domain not found")

	off := false
	headless := kubevirtv1.VirtualMachineInstance{}
	headless.Spec.Domain.Devices.AutoattachGraphicsDevice = &off
	_, err = serveFake(t, headless, true).Screenshot(context.Background())
	require.EqualError(t, err, "No graphics devices are present.")
}
