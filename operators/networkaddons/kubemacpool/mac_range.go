// Package kubemacpool is kubemacpool's MAC pool and the allocation logic of
// its VirtualMachine mutating webhook (mutatevirtualmachines.kubemacpool.io):
// every VM interface gets a MAC from one cluster-wide range, a requested MAC
// is kept only while no other VM holds it, and the pool can be rebuilt from
// the VMs that exist. Messages follow kubemacpool's, since users and tests
// match on them.
package kubemacpool

import (
	"errors"
	"fmt"
	"io"
	"net"
)

// Range is the inclusive span of MACs the pool hands out.
type Range struct {
	Start net.HardwareAddr
	End   net.HardwareAddr
}

// ParseRange reads spec.kubeMacPool's rangeStart and rangeEnd with
// cluster-network-addons-operator's messages, then validates the span as
// kubemacpool does (start strictly before end, both unicast).
func ParseRange(start, end string) (Range, error) {
	if (start == "") != (end == "") {
		return Range{}, errors.New("both or none of the KubeMacPool ranges needs to be configured")
	}
	s, err := parseMAC48(start)
	if err != nil {
		return Range{}, errors.New("failed to parse rangeStart because the mac address is invalid")
	}
	e, err := parseMAC48(end)
	if err != nil {
		return Range{}, errors.New("failed to parse rangeEnd because the mac address is invalid")
	}
	r := Range{Start: s, End: e}
	return r, r.validate()
}

// DefaultRange is the range cluster-network-addons-operator generates when
// none is configured: 02:XX:XX:00:00:00 to 02:XX:XX:FF:FF:FF, locally
// administered unicast under a random two-octet prefix, so two clusters on
// one L2 are unlikely to share MACs.
func DefaultRange(random io.Reader) (Range, error) {
	suffix := make([]byte, 2)
	if _, err := io.ReadFull(random, suffix); err != nil {
		return Range{}, fmt.Errorf("generating random mac address prefix: %w", err)
	}
	start := net.HardwareAddr{0x02, suffix[0], suffix[1], 0x00, 0x00, 0x00}
	end := net.HardwareAddr{0x02, suffix[0], suffix[1], 0xFF, 0xFF, 0xFF}
	return Range{Start: start, End: end}, nil
}

// String prints the range as the pool's logs and errors name it.
func (r Range) String() string {
	return fmt.Sprintf("%s-%s", r.Start, r.End)
}

// Contains says whether mac lies in the range; a requested MAC outside it
// is still allowed (kubemacpool only refuses one already in use).
func (r Range) Contains(mac string) bool {
	m, err := parseMAC48(mac)
	if err != nil {
		return false
	}
	v := macToUint(m)
	return v >= macToUint(r.Start) && v <= macToUint(r.End)
}

func (r Range) validate() error {
	if len(r.Start) != 6 || len(r.End) != 6 || macToUint(r.Start) >= macToUint(r.End) {
		return fmt.Errorf("invalid range. rangeStart: %s rangeEnd: %s", r.Start, r.End)
	}
	if err := checkUnicast(r.Start); err != nil {
		return fmt.Errorf("invalid range start: %w", err)
	}
	if err := checkUnicast(r.End); err != nil {
		return fmt.Errorf("invalid range end: %w", err)
	}
	return nil
}

// checkUnicast refuses a multicast MAC (the low bit of the first octet), which
// no NIC may take as its own address.
func checkUnicast(mac net.HardwareAddr) error {
	if mac[0]&1 == 0 {
		return nil
	}
	return fmt.Errorf("invalid mac address. Multicast addressing is not supported. "+
		"Unicast addressing must be used. The first octet is %#0X", mac[0])
}

// parseMAC48 accepts what net.ParseMAC does, but only 48-bit addresses: a
// VM's NIC has no EUI-64 or InfiniBand address.
func parseMAC48(s string) (net.HardwareAddr, error) {
	mac, err := net.ParseMAC(s)
	if err != nil {
		return nil, err
	}
	if len(mac) != 6 {
		return nil, fmt.Errorf("address %s: not a 48-bit mac address", s)
	}
	return mac, nil
}

func macToUint(mac net.HardwareAddr) uint64 {
	var v uint64
	for _, b := range mac {
		v = v<<8 | uint64(b)
	}
	return v
}

func uintToMAC(v uint64) net.HardwareAddr {
	mac := make(net.HardwareAddr, 6)
	for i := 5; i >= 0; i-- {
		mac[i] = byte(v)
		v >>= 8
	}
	return mac
}
