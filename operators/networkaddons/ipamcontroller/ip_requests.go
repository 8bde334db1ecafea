package ipamcontroller

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// interfaceIPRequests are the addresses the VMI asks for on iface
// (IPRequestsAnnotation), each with the prefix length of the primary
// network's first subnet of its family, as the default network element
// carries them.
func interfaceIPRequests(vmi *kubevirtv1.VirtualMachineInstance, iface string, conf *netConf) ([]string, error) {
	raw, ok := vmi.Annotations[IPRequestsAnnotation]
	if !ok {
		return nil, nil
	}
	var requests map[string][]string
	if err := json.Unmarshal([]byte(raw), &requests); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", IPRequestsAnnotation, err)
	}
	v4, v6, err := subnetsByFamily(conf.Subnets)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(requests[iface]))
	for _, ip := range requests[iface] {
		parsed := net.ParseIP(ip)
		var subnets []string
		switch {
		case parsed == nil:
			return nil, fmt.Errorf("invalid IP address format: %s", ip)
		case parsed.To4() != nil:
			if subnets = v4; len(subnets) == 0 {
				return nil, fmt.Errorf("no IPv4 subnet configured for IPv4 IP request: %s", ip)
			}
		default:
			if subnets = v6; len(subnets) == 0 {
				return nil, fmt.Errorf("no IPv6 subnet configured for IPv6 IP request: %s", ip)
			}
		}
		_, prefix, _ := strings.Cut(subnets[0], "/")
		out = append(out, ip+"/"+prefix)
	}
	return out, nil
}

// subnetsByFamily splits a comma-separated list of CIDRs into IPv4 and
// IPv6 ones.
func subnetsByFamily(subnets string) (v4, v6 []string, err error) {
	for _, s := range strings.Split(subnets, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		_, ipNet, err := net.ParseCIDR(s)
		if err != nil {
			return nil, nil, fmt.Errorf("invalid subnet format: %s: %w", s, err)
		}
		if ipNet.IP.To4() != nil {
			v4 = append(v4, s)
		} else {
			v6 = append(v6, s)
		}
	}
	return v4, v6, nil
}
