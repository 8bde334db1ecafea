package libvirtfake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/node/libvirt"
)

const domXML = `<domain type='%s'><name>%s</name><memory unit='KiB'>131072</memory><vcpu>1</vcpu>
<os><type arch='x86_64'>hvm</type></os></domain>`

// exercise is a copy of node/libvirt's, which runs the same lifecycle on
// the real libvirt test driver: the fake is held to what that driver does,
// so a change there belongs here too.
func exercise(t *testing.T, h libvirt.Hypervisor, typ string) {
	ctx := context.Background()
	name := "virtflow-lifecycle"
	info, err := h.Create(ctx, fmt.Sprintf(domXML, typ, name), false)
	require.NoError(t, err)
	require.Equal(t, libvirt.Running, info.State)

	require.NoError(t, h.Pause(ctx, name))
	got, err := h.Lookup(ctx, name)
	require.NoError(t, err)
	require.Equal(t, libvirt.Paused, got.State)
	require.NoError(t, h.Resume(ctx, name))
	got, err = h.Lookup(ctx, name)
	require.NoError(t, err)
	require.Equal(t, libvirt.Running, got.State)

	all, err := h.List(ctx)
	require.NoError(t, err)
	require.Contains(t, names(all), name)

	require.NoError(t, h.Destroy(ctx, name))
	_, err = h.Lookup(ctx, name)
	require.True(t, errors.Is(err, libvirt.ErrNotFound), "a destroyed transient domain is gone: %v", err)
	require.ErrorIs(t, h.Pause(ctx, "no-such-domain"), libvirt.ErrNotFound)
}

func names(in []libvirt.DomainInfo) []string {
	out := make([]string, len(in))
	for i, d := range in {
		out[i] = d.Name
	}
	return out
}

// screenshotOf is a copy of node/libvirt's: it runs a domain on h and
// checks its screenshot is a PNG.
func screenshotOf(t *testing.T, h libvirt.Hypervisor, typ string) image.Image {
	ctx := context.Background()
	_, err := h.Create(ctx, fmt.Sprintf(domXML, typ, "shot"), false)
	require.NoError(t, err)
	defer h.Destroy(ctx, "shot")
	out, err := h.Screenshot(ctx, "shot")
	require.NoError(t, err)
	_, err = h.Screenshot(ctx, "no-such-domain")
	require.ErrorIs(t, err, libvirt.ErrNotFound)
	img, err := png.Decode(bytes.NewReader(out))
	require.NoError(t, err)
	return img
}

func TestFollowsTheDomainLifecycle(t *testing.T) {
	exercise(t, New(), "qemu")
}

func TestRejectsMalformedXML(t *testing.T) {
	_, err := New().Create(context.Background(), "<domain", false)
	require.ErrorContains(t, err, "parsing domain XML")
}

func TestGuestAgentOnlyWhereOneIsConnected(t *testing.T) {
	ctx := context.Background()
	f := New()
	f.Agents = map[string]libvirt.GuestInfo{"with-agent": {Hostname: "guest", OS: libvirt.GuestOS{ID: "virtflow-test-guest"}}}
	for _, name := range []string{"with-agent", "without"} {
		_, err := f.Create(ctx, fmt.Sprintf(domXML, "qemu", name), false)
		require.NoError(t, err)
	}
	connected, err := f.AgentConnected(ctx, "with-agent")
	require.NoError(t, err)
	require.True(t, connected)
	gi, err := f.GuestInfo(ctx, "with-agent")
	require.NoError(t, err)
	require.Equal(t, "guest", gi.Hostname)

	connected, err = f.AgentConnected(ctx, "without")
	require.NoError(t, err)
	require.False(t, connected)
	_, err = f.GuestInfo(ctx, "without")
	require.ErrorIs(t, err, libvirt.ErrNoAgent)
	_, err = f.GuestInfo(ctx, "no-such-domain")
	require.ErrorIs(t, err, libvirt.ErrNotFound)
}

func TestScreenshotIsNotOneColour(t *testing.T) {
	img := screenshotOf(t, New(), "qemu")
	require.Equal(t, image.Rect(0, 0, 640, 480), img.Bounds())
	require.NotEqual(t, img.At(0, 0), img.At(10, 20))
}
