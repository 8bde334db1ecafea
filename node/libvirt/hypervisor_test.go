package libvirt

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

const domXML = `<domain type='%s'><name>%s</name><memory unit='KiB'>131072</memory><vcpu>1</vcpu>
<os><type arch='x86_64'>hvm</type></os></domain>`

// exercise runs a domain's lifecycle against a Hypervisor. libvirtfake's
// tests run a copy of it on the fake, so the fake is held to what the real
// libvirt test driver does; a change here belongs there too.
func exercise(t *testing.T, h Hypervisor, typ string) {
	ctx := context.Background()
	name := "virtflow-lifecycle"
	info, err := h.Create(ctx, fmt.Sprintf(domXML, typ, name), false)
	require.NoError(t, err)
	require.Equal(t, Running, info.State)

	require.NoError(t, h.Pause(ctx, name))
	got, err := h.Lookup(ctx, name)
	require.NoError(t, err)
	require.Equal(t, Paused, got.State)
	require.NoError(t, h.Resume(ctx, name))
	got, err = h.Lookup(ctx, name)
	require.NoError(t, err)
	require.Equal(t, Running, got.State)

	all, err := h.List(ctx)
	require.NoError(t, err)
	require.Contains(t, names(all), name)

	require.NoError(t, h.Destroy(ctx, name))
	_, err = h.Lookup(ctx, name)
	require.True(t, errors.Is(err, ErrNotFound), "a destroyed transient domain is gone: %v", err)
	require.ErrorIs(t, h.Pause(ctx, "no-such-domain"), ErrNotFound)
}

func names(in []DomainInfo) []string {
	out := make([]string, len(in))
	for i, d := range in {
		out[i] = d.Name
	}
	return out
}

func TestLibvirtTestDriverFollowsTheDomainLifecycle(t *testing.T) {
	h, err := Connect("test:///default")
	require.NoError(t, err)
	defer h.Close()
	exercise(t, h, "test")
}

func TestLibvirtReportsNoAgentChannelAsDisconnected(t *testing.T) {
	h, err := Connect("test:///default")
	require.NoError(t, err)
	defer h.Close()
	ctx := context.Background()
	_, err = h.Create(ctx, fmt.Sprintf(domXML, "test", "no-agent"), false)
	require.NoError(t, err)
	defer h.Destroy(ctx, "no-agent")
	connected, err := h.AgentConnected(ctx, "no-agent")
	require.NoError(t, err)
	require.False(t, connected)
}
