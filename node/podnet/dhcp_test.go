package podnet

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func discover(t *testing.T, mac string, typ byte) dhcpMessage {
	hw, err := net.ParseMAC(mac)
	require.NoError(t, err)
	raw := dhcpMessage{op: bootRequest, xid: [4]byte{1, 2, 3, 4}, flags: 0x8000, chaddr: hw, msgType: typ,
		options: map[byte][]byte{55: {1, 3, 6, 12, 15, 26}}}.marshal()
	m, err := parseDHCP(raw)
	require.NoError(t, err)
	return m
}

func TestTheGuestIsOfferedThenGivenItsAddressRoutesDNSAndName(t *testing.T) {
	resolv := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.WriteFile(resolv, []byte("search ns1.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"), 0o644))
	iface := Interface{Name: "default", Binding: Masquerade, MAC: "02:aa:bb:cc:dd:ee", Bridge: PodBridge, MTU: 1450, Hostname: "web",
		GuestAddress: MasqueradeGuest, Gateway: MasqueradeGateway.Addr(), ServerAddress: MasqueradeGateway.Addr()}
	l, err := LeaseFor(iface, resolv)
	require.NoError(t, err)

	for typ, want := range map[byte]byte{dhcpDiscover: dhcpOffer, dhcpRequest: dhcpAck} {
		resp, ok := l.reply(discover(t, "02:AA:BB:CC:DD:EE", typ))
		require.True(t, ok)
		got, err := parseDHCP(resp.marshal())
		require.NoError(t, err)
		require.Equal(t, want, got.msgType)
		require.Equal(t, byte(bootReply), got.op)
		require.Equal(t, [4]byte{1, 2, 3, 4}, got.xid)
		require.Equal(t, []byte{255, 255, 255, 0}, got.options[optSubnetMask])
		require.Equal(t, []byte{10, 0, 2, 1}, got.options[optRouter])
		require.Equal(t, []byte{10, 0, 2, 1}, got.options[optServerID])
		require.Equal(t, []byte{10, 96, 0, 10}, got.options[optDNS])
		require.Equal(t, "ns1.svc.cluster.local", string(got.options[optDomainName]))
		require.Equal(t, "web", string(got.options[optHostname]))
		require.Equal(t, []byte{0x05, 0xaa}, got.options[optMTU])
		raw := resp.marshal()
		require.Equal(t, netip.MustParseAddr("10.0.2.2"), netip.AddrFrom4([4]byte(raw[16:20])), "yiaddr")
	}
}

func TestTheInterfacesDHCPOptionsAreOffered(t *testing.T) {
	resolv := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.WriteFile(resolv, []byte("nameserver 10.96.0.10\n"), 0o644))
	iface := Interface{Name: "default", Binding: Masquerade, MAC: "02:aa:bb:cc:dd:ee", Bridge: PodBridge,
		GuestAddress: MasqueradeGuest, Gateway: MasqueradeGateway.Addr(), ServerAddress: MasqueradeGateway.Addr(),
		DHCPOptions: &kubevirtv1.DHCPOptions{BootFileName: "pxelinux.0", TFTPServerName: "tftp.example", NTPServers: []string{"10.1.1.1", "10.1.1.2"},
			PrivateOptions: []kubevirtv1.DHCPPrivateOptions{{Option: 240, Value: "extra"}}}}
	l, err := LeaseFor(iface, resolv)
	require.NoError(t, err)
	resp, ok := l.reply(discover(t, "02:aa:bb:cc:dd:ee", dhcpDiscover))
	require.True(t, ok)
	got, err := parseDHCP(resp.marshal())
	require.NoError(t, err)
	require.Equal(t, "pxelinux.0", string(got.options[optBootFile]))
	require.Equal(t, "tftp.example", string(got.options[optTFTPServer]))
	require.Equal(t, []byte{10, 1, 1, 1, 10, 1, 1, 2}, got.options[optNTPServers])
	require.Equal(t, "extra", string(got.options[240]))
}

func TestAnotherMACOrMessageGetsNoAnswer(t *testing.T) {
	l := Lease{Interface: Interface{MAC: "02:aa:bb:cc:dd:ee", GuestAddress: MasqueradeGuest, ServerAddress: MasqueradeGateway.Addr()}}
	_, ok := l.reply(discover(t, "02:aa:bb:cc:dd:ef", dhcpDiscover))
	require.False(t, ok, "a stranger on the bridge gets no lease")
	_, ok = l.reply(discover(t, "02:aa:bb:cc:dd:ee", 7 /* release */))
	require.False(t, ok)
	_, err := parseDHCP([]byte("hello"))
	require.ErrorIs(t, err, errNotDHCP)
}
