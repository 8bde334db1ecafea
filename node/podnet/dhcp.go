package podnet

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
)

// leaseSeconds is the lease upstream hands out: 999 days, so a guest never
// loses its address while its pod lives.
const leaseSeconds = 999 * 24 * 3600

// Lease is what the launcher's DHCP server hands one guest.
type Lease struct {
	Interface
	// DNS and Search are the pod's resolver settings, passed on.
	DNS    []netip.Addr
	Search []string
}

// LeaseFor builds an interface's lease with the resolver settings of
// resolvConf (the pod's /etc/resolv.conf).
func LeaseFor(iface Interface, resolvConf string) (Lease, error) {
	l := Lease{Interface: iface}
	f, err := os.Open(resolvConf)
	if err != nil {
		return l, fmt.Errorf("reading the pod's resolver settings: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 2 {
			continue
		}
		switch fields[0] {
		case "nameserver":
			if a, err := netip.ParseAddr(fields[1]); err == nil && a.Is4() {
				l.DNS = append(l.DNS, a)
			}
		case "search":
			l.Search = fields[1:]
		}
	}
	return l, s.Err()
}

// reply answers a DISCOVER with an OFFER and a REQUEST with an ACK, for
// the guest's own MAC only; anything else gets no answer.
func (l Lease) reply(req dhcpMessage) (dhcpMessage, bool) {
	if req.op != bootRequest || !strings.EqualFold(req.chaddr.String(), l.MAC) {
		return dhcpMessage{}, false
	}
	var typ byte
	switch req.msgType {
	case dhcpDiscover:
		typ = dhcpOffer
	case dhcpRequest:
		typ = dhcpAck
	default:
		return dhcpMessage{}, false
	}
	opts := map[byte][]byte{
		optSubnetMask: mask4(l.GuestAddress.Bits()),
		optLeaseTime:  uint32Bytes(leaseSeconds),
		optServerID:   addr4(l.ServerAddress),
	}
	if l.Gateway.IsValid() {
		opts[optRouter] = addr4(l.Gateway)
	}
	var dns []byte
	for _, a := range l.DNS {
		dns = append(dns, addr4(a)...)
	}
	if len(dns) > 0 {
		opts[optDNS] = dns
	}
	if len(l.Search) > 0 {
		opts[optDomainName] = []byte(l.Search[0])
	}
	if l.Hostname != "" {
		opts[optHostname] = []byte(l.Hostname)
	}
	if l.MTU > 0 {
		opts[optMTU] = uint16Bytes(uint16(l.MTU))
	}
	addDHCPOptions(opts, l.DHCPOptions)
	return dhcpMessage{
		op: bootReply, xid: req.xid, flags: req.flags, ciaddr: req.ciaddr,
		yiaddr: l.GuestAddress.Addr(), siaddr: l.ServerAddress, chaddr: req.chaddr,
		msgType: typ, options: opts,
	}, true
}

// ServeDHCP answers the guest's DHCP on the lease's bridge until ctx ends;
// started receives nil once it listens, or why it could not. It needs
// port 67, which the node agent opened to unprivileged users in the pod's
// namespace.
func ServeDHCP(ctx context.Context, l Lease, started chan<- error) error {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = errors.Join(
				syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1),
				syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1),
				syscall.BindToDevice(int(fd), l.Bridge))
		})
		return errors.Join(err, serr)
	}}
	conn, err := lc.ListenPacket(ctx, "udp4", ":67")
	if err != nil {
		err = fmt.Errorf("failed to start DHCP server for interface %s: %w", l.Name, err)
		started <- err
		return err
	}
	started <- nil
	go func() {
		<-ctx.Done()
		conn.Close()
	}()
	to := &net.UDPAddr{IP: net.IPv4bcast, Port: 68}
	buf := make([]byte, 1500)
	for {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("DHCP server of interface %s: %w", l.Name, err)
		}
		req, err := parseDHCP(buf[:n])
		if err != nil {
			continue
		}
		if resp, ok := l.reply(req); ok {
			if _, err := conn.WriteTo(resp.marshal(), to); err != nil {
				return fmt.Errorf("DHCP server of interface %s: answering: %w", l.Name, err)
			}
		}
	}
}

// addDHCPOptions adds what the interface's dhcpOptions ask for: a boot
// file and TFTP server for network boot, NTP servers, and the private
// options (224-254) as given.
func addDHCPOptions(opts map[byte][]byte, o *kubevirtv1.DHCPOptions) {
	if o == nil {
		return
	}
	if o.BootFileName != "" {
		opts[optBootFile] = []byte(o.BootFileName)
	}
	if o.TFTPServerName != "" {
		opts[optTFTPServer] = []byte(o.TFTPServerName)
	}
	var ntp []byte
	for _, s := range o.NTPServers {
		if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
			ntp = append(ntp, addr4(a)...)
		}
	}
	if len(ntp) > 0 {
		opts[optNTPServers] = ntp
	}
	for _, p := range o.PrivateOptions {
		opts[byte(p.Option)] = []byte(p.Value)
	}
}
