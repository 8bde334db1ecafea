package bridgemarker

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Bridges are the Linux bridges of this network namespace (the node's,
// with hostNetwork), sorted, listed as upstream does: the links whose kind
// is bridge.
func Bridges() ([]string, error) {
	rib, err := syscall.NetlinkRIB(syscall.RTM_GETLINK, syscall.AF_UNSPEC)
	if err != nil {
		return nil, fmt.Errorf("listing links: %w", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(rib)
	if err != nil {
		return nil, fmt.Errorf("reading the link list: %w", err)
	}
	var out []string
	for i := range msgs {
		if msgs[i].Header.Type != syscall.RTM_NEWLINK {
			continue
		}
		attrs, err := syscall.ParseNetlinkRouteAttr(&msgs[i])
		if err != nil {
			return nil, fmt.Errorf("reading a link's attributes: %w", err)
		}
		if name, kind := linkNameAndKind(attrs); kind == "bridge" && name != "" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func linkNameAndKind(attrs []syscall.NetlinkRouteAttr) (name, kind string) {
	for _, a := range attrs {
		switch a.Attr.Type {
		case unix.IFLA_IFNAME:
			name = cString(a.Value)
		case unix.IFLA_LINKINFO:
			kind = infoKind(a.Value)
		}
	}
	return name, kind
}

// infoKind reads IFLA_INFO_KIND out of a link's nested IFLA_LINKINFO.
func infoKind(b []byte) string {
	for len(b) >= 4 {
		l := int(binary.NativeEndian.Uint16(b[0:2]))
		typ := binary.NativeEndian.Uint16(b[2:4])
		if l < 4 || l > len(b) {
			return ""
		}
		if typ&^unix.NLA_F_NESTED == unix.IFLA_INFO_KIND {
			return cString(b[4:l])
		}
		next := (l + unix.NLA_ALIGNTO - 1) &^ (unix.NLA_ALIGNTO - 1)
		if next > len(b) {
			return ""
		}
		b = b[next:]
	}
	return ""
}

func cString(b []byte) string { return strings.TrimRight(string(b), "\x00") }
