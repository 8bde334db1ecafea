package launcher

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/podnet"
)

func TestPasstForwardsTheInterfacesPortsOrAllOfThem(t *testing.T) {
	cases := []struct {
		name     string
		ports    []kubevirtv1.Port
		tcp, udp string
	}{
		{"no ports: all, as upstream", nil, "all", "all"},
		{"tcp by default, udp when asked", []kubevirtv1.Port{{Port: 80}, {Port: 22, Protocol: "TCP"}, {Port: 53, Protocol: "UDP"}}, "80,22", "53"},
		{"only udp", []kubevirtv1.Port{{Port: 53, Protocol: "udp"}}, "none", "53"},
		{"an unsupported protocol is skipped", []kubevirtv1.Port{{Port: 9, Protocol: "SCTP"}}, "none", "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tcp, udp := passtPortSpecs(c.ports)
			require.Equal(t, c.tcp, tcp)
			require.Equal(t, c.udp, udp)
		})
	}
}

func TestPasstRunsInTheForegroundWithThePodsMTU(t *testing.T) {
	args := passtArgs(podnet.Interface{MTU: 1400}, "/d/p.sock", "/d/p.log", "80", "none")
	require.Equal(t, []string{"--foreground", "--socket", "/d/p.sock", "--log-file", "/d/p.log", "--quiet", "-t", "80", "-u", "none", "--mtu", "1400"}, args)
}

func TestALaunchFailsWhenPasstExitsBeforeListening(t *testing.T) {
	was := passtBinary
	t.Cleanup(func() { passtBinary = was })
	passtBinary = "false"
	cfg := Config{Dir: t.TempDir(), Network: podnet.Plan{Interfaces: []podnet.Interface{
		{Name: "default", Binding: podnet.Passt}, {Name: "tapped", Binding: podnet.Masquerade}}}}
	err := startPasst(context.Background(), &cfg)
	require.ErrorContains(t, err, "passt for interface default: exited before listening")
	require.Empty(t, cfg.Network.Interfaces[0].Socket, "no socket for qemu to connect to")
}
