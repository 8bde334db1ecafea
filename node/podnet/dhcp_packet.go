package podnet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
)

// DHCPv4 message types (option 53) this server reads and writes.
const (
	dhcpDiscover = 1
	dhcpOffer    = 2
	dhcpRequest  = 3
	dhcpAck      = 5
)

// DHCP option codes used here (RFC 2132).
const (
	optSubnetMask   = 1
	optRouter       = 3
	optDNS          = 6
	optHostname     = 12
	optDomainName   = 15
	optMTU          = 26
	optNTPServers   = 42
	optTFTPServer   = 66
	optBootFile     = 67
	optLeaseTime    = 51
	optMessageType  = 53
	optServerID     = 54
	optEnd          = 255
	optPad          = 0
	dhcpMagicCookie = 0x63825363
	bootRequest     = 1
	bootReply       = 2
	// dhcpFixedLen is the BOOTP header before the options.
	dhcpFixedLen = 236
)

// dhcpMessage is the part of a DHCPv4 message this server needs.
type dhcpMessage struct {
	op      byte
	xid     [4]byte
	flags   uint16
	ciaddr  netip.Addr
	yiaddr  netip.Addr
	siaddr  netip.Addr
	chaddr  net.HardwareAddr
	msgType byte
	options map[byte][]byte
}

var errNotDHCP = errors.New("not a DHCPv4 message")

// parseDHCP reads a BOOTP/DHCPv4 message.
func parseDHCP(b []byte) (dhcpMessage, error) {
	if len(b) < dhcpFixedLen+4 || b[1] != 1 || b[2] != 6 || binary.BigEndian.Uint32(b[dhcpFixedLen:]) != dhcpMagicCookie {
		return dhcpMessage{}, errNotDHCP
	}
	m := dhcpMessage{op: b[0], flags: binary.BigEndian.Uint16(b[10:12]), options: map[byte][]byte{}}
	copy(m.xid[:], b[4:8])
	m.ciaddr = netip.AddrFrom4([4]byte(b[12:16]))
	m.chaddr = net.HardwareAddr(append([]byte(nil), b[28:34]...))
	for i := dhcpFixedLen + 4; i < len(b); {
		code := b[i]
		if code == optEnd {
			break
		}
		if code == optPad {
			i++
			continue
		}
		if i+1 >= len(b) || i+2+int(b[i+1]) > len(b) {
			return dhcpMessage{}, errors.New("truncated DHCP option")
		}
		m.options[code] = b[i+2 : i+2+int(b[i+1])]
		i += 2 + int(b[i+1])
	}
	if t := m.options[optMessageType]; len(t) == 1 {
		m.msgType = t[0]
	}
	return m, nil
}

// marshal writes the message with its options in ascending code order.
func (m dhcpMessage) marshal() []byte {
	b := make([]byte, dhcpFixedLen+4)
	b[0], b[1], b[2] = m.op, 1, 6
	copy(b[4:8], m.xid[:])
	binary.BigEndian.PutUint16(b[10:12], m.flags)
	put4 := func(at int, a netip.Addr) {
		if a.Is4() {
			v := a.As4()
			copy(b[at:at+4], v[:])
		}
	}
	put4(12, m.ciaddr)
	put4(16, m.yiaddr)
	put4(20, m.siaddr)
	copy(b[28:44], m.chaddr)
	binary.BigEndian.PutUint32(b[dhcpFixedLen:], dhcpMagicCookie)
	var opts bytes.Buffer
	opts.Write([]byte{optMessageType, 1, m.msgType})
	for code := 1; code < optEnd; code++ {
		v, ok := m.options[byte(code)]
		if !ok || code == optMessageType {
			continue
		}
		opts.Write([]byte{byte(code), byte(len(v))})
		opts.Write(v)
	}
	opts.WriteByte(optEnd)
	return append(b, opts.Bytes()...)
}

func addr4(a netip.Addr) []byte {
	v := a.As4()
	return v[:]
}

func mask4(bits int) []byte {
	return net.CIDRMask(bits, 32)
}

func uint32Bytes(v uint32) []byte {
	return binary.BigEndian.AppendUint32(nil, v)
}

func uint16Bytes(v uint16) []byte {
	return binary.BigEndian.AppendUint16(nil, v)
}
