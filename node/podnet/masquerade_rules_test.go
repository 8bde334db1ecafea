package podnet

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestWithoutPortsEverythingReachesTheGuest(t *testing.T) {
	r := masqueradeRules(PodBridge, nil)
	for _, want := range []string{
		`iifname "eth0" counter jump KUBEVIRT_PREINBOUND`,
		"ip saddr 10.0.2.2 counter masquerade",
		`oifname "k6t-eth0" counter jump KUBEVIRT_POSTINBOUND`,
		"    counter dnat to 10.0.2.2",
		"ip daddr 127.0.0.1 counter dnat to 10.0.2.2",
		"ip saddr 127.0.0.1 counter snat to 10.0.2.1",
	} {
		require.Contains(t, r, want)
	}
}

func TestWithPortsOnlyThoseReachTheGuest(t *testing.T) {
	r := masqueradeRules(PodBridge, []kubevirtv1.Port{{Port: 80}, {Port: 53, Protocol: "UDP"}})
	require.Contains(t, r, "tcp dport 80 counter dnat to 10.0.2.2")
	require.Contains(t, r, "udp dport 53 counter dnat to 10.0.2.2")
	require.Contains(t, r, "ip daddr 127.0.0.1 tcp dport 80 counter dnat to 10.0.2.2")
	require.Contains(t, r, "tcp dport 80 ip saddr 127.0.0.1 counter snat to 10.0.2.1")
	require.Equal(t, 2, strings.Count(r, "dnat to 10.0.2.2\n")-2, "one inbound rule per port, besides the output ones")
}

func TestABindingThisNodeCannotConnectIsRefused(t *testing.T) {
	_, err := bindingOf(kubevirtv1.Interface{Name: "x", Binding: &kubevirtv1.PluginBinding{Name: "macvtap"}})
	require.EqualError(t, err, `interface x: network binding plugin "macvtap" is not available on this node`)
	b, err := bindingOf(kubevirtv1.Interface{Name: "x", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{PasstBinding: &kubevirtv1.InterfacePasstBinding{}}})
	require.NoError(t, err)
	require.Equal(t, Passt, b)
}
