package podnet

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestWithoutPortsEverythingReachesTheGuest(t *testing.T) {
	r := masqueradeRules(PodBridge, masquerade{MasqueradeGateway, MasqueradeGuest}, portMatches(nil, nil))
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
	r := masqueradeRules(PodBridge, masquerade{MasqueradeGateway, MasqueradeGuest}, portMatches([]kubevirtv1.Port{{Port: 80}, {Port: 53, Protocol: "UDP"}}, nil))
	require.Contains(t, r, "tcp dport 80 counter dnat to 10.0.2.2")
	require.Contains(t, r, "udp dport 53 counter dnat to 10.0.2.2")
	require.Contains(t, r, "ip daddr 127.0.0.1 tcp dport 80 counter dnat to 10.0.2.2")
	require.Contains(t, r, "tcp dport 80 ip saddr 127.0.0.1 counter snat to 10.0.2.1")
	require.Equal(t, 2, strings.Count(r, "dnat to 10.0.2.2\n")-2, "one inbound rule per port, besides the output ones")
}

func TestPortRangesReachTheGuestAndOnlyThey(t *testing.T) {
	r := masqueradeRules(PodBridge, masquerade{MasqueradeGateway, MasqueradeGuest}, portMatches(nil, []kubevirtv1.PortRange{{Protocol: "UDP", Start: 5000, End: 5010}}))
	require.Contains(t, r, "udp dport 5000-5010 counter dnat to 10.0.2.2")
	require.NotContains(t, r, "    counter dnat to 10.0.2.2", "nothing outside the range is forwarded")
}

func TestTheVMNetworkCIDRPlacesTheGatewayAndTheGuest(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{Spec: kubevirtv1.VirtualMachineInstanceSpec{Networks: []kubevirtv1.Network{
		{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{VMNetworkCIDR: "10.11.12.0/28"}}},
	}}}
	m, err := masqueradeSubnet(vmi)
	require.NoError(t, err)
	require.Equal(t, "10.11.12.1/28", m.gateway.String())
	require.Equal(t, "10.11.12.2/28", m.guest.String())
	r := masqueradeRules(PodBridge, m, portMatches(nil, nil))
	require.Contains(t, r, "ip saddr 10.11.12.2 counter masquerade")
	vmi.Spec.Networks[0].Pod.VMNetworkCIDR = "10.0.0.0/31"
	_, err = masqueradeSubnet(vmi)
	require.ErrorContains(t, err, "room for a gateway and a guest")
}

func TestABindingThisNodeCannotConnectIsRefused(t *testing.T) {
	_, err := bindingOf(kubevirtv1.Interface{Name: "x", Binding: &kubevirtv1.PluginBinding{Name: "macvtap"}})
	require.EqualError(t, err, `interface x: network binding plugin "macvtap" is not available on this node`)
	b, err := bindingOf(kubevirtv1.Interface{Name: "x", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{PasstBinding: &kubevirtv1.InterfacePasstBinding{}}})
	require.NoError(t, err)
	require.Equal(t, Passt, b)
}

func TestNICsGetAQueuePerVCPUOnlyWhenAskedAndThereAreSeveral(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	vmi.Spec.Domain.CPU = &kubevirtv1.CPU{Sockets: 2, Cores: 2}
	require.False(t, MultiQueue(vmi), "not asked")
	yes := true
	vmi.Spec.Domain.Devices.NetworkInterfaceMultiQueue = &yes
	require.True(t, MultiQueue(vmi))
	require.Equal(t, uint(4), NICQueues(vmi))
	vmi.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 1}
	require.False(t, MultiQueue(vmi), "one vCPU: one queue, a plain tap")
}
