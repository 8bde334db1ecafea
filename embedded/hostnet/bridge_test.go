package hostnet

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// netns makes a network namespace of the test's own, so nothing here
// touches the host's network.
func netns(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("vf-hostnet-%d", os.Getpid())
	out, err := exec.Command("ip", "netns", "add", name).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	return name
}

func TestBridgeIsCreatedOnceAndRemoved(t *testing.T) {
	ctx := context.Background()
	b := Bridge{Name: "vftest0", Address: netip.MustParsePrefix("10.250.0.1/24"), Netns: netns(t)}
	created, err := b.Ensure(ctx)
	require.NoError(t, err)
	require.True(t, created)
	created, err = b.Ensure(ctx)
	require.NoError(t, err)
	require.False(t, created, "an existing bridge is kept")
	addrs, err := b.Addresses(ctx)
	require.NoError(t, err)
	require.Contains(t, addrs, "10.250.0.1/24")
	require.NoError(t, b.Remove(ctx))
	_, err = b.Addresses(ctx)
	require.Error(t, err, "the bridge is gone")
	require.NoError(t, b.Remove(ctx), "removing twice is fine")
}

func TestEnsureNeedsANameAndAnAddress(t *testing.T) {
	_, err := Bridge{Name: "x"}.Ensure(context.Background())
	require.ErrorContains(t, err, "needs a name and an address")
}
