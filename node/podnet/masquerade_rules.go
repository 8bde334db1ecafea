package podnet

import (
	"fmt"
	"net/netip"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// masqueradeRules is the nftables ruleset of a masquerade interface, in
// the pod's network namespace, as upstream's chains: the guest's traffic
// leaves with the pod's address; what reaches the pod (all of it, or the
// interface's ports) goes to the guest; and what the pod sends itself on
// 127.0.0.1 (port-forward) reaches the guest too, answered back through
// the bridge's address.
func masqueradeRules(bridge string, subnet masquerade, matches []string) string {
	guest, gw := subnet.guest.Addr(), subnet.gateway.Addr()
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("table ip nat {")
	line("  chain prerouting { type nat hook prerouting priority dstnat; policy accept;")
	line("    iifname %q counter jump KUBEVIRT_PREINBOUND", PodInterface)
	line("  }")
	line("  chain input { type nat hook input priority 100; policy accept; }")
	line("  chain output { type nat hook output priority -100; policy accept;")
	for _, m := range matches {
		line("    ip daddr 127.0.0.1 %scounter dnat to %s", m, guest)
	}
	line("  }")
	line("  chain postrouting { type nat hook postrouting priority srcnat; policy accept;")
	line("    ip saddr %s counter masquerade", guest)
	line("    oifname %q counter jump KUBEVIRT_POSTINBOUND", bridge)
	line("  }")
	line("  chain KUBEVIRT_PREINBOUND {")
	for _, m := range matches {
		line("    %scounter dnat to %s", m, guest)
	}
	line("  }")
	line("  chain KUBEVIRT_POSTINBOUND {")
	for _, m := range matches {
		line("    %sip saddr 127.0.0.1 counter snat to %s", m, gw)
	}
	line("  }")
	line("}")
	return b.String()
}

// portMatches are the rule prefixes selecting the forwarded ports: one
// empty match (everything) when the interface lists none.
func portMatches(ports []kubevirtv1.Port, ranges []kubevirtv1.PortRange) []string {
	if len(ports) == 0 && len(ranges) == 0 {
		return []string{""}
	}
	out := make([]string, 0, len(ports)+len(ranges))
	for _, p := range ports {
		out = append(out, fmt.Sprintf("%s dport %d ", protocol(p.Protocol), p.Port))
	}
	for _, r := range ranges {
		out = append(out, fmt.Sprintf("%s dport %d-%d ", protocol(r.Protocol), r.Start, r.End))
	}
	return out
}

func protocol(p string) string {
	if p == "" {
		return "tcp"
	}
	return strings.ToLower(p)
}

// masquerade is the guest's side of a masquerade interface: the bridge's
// address, its gateway, and the guest's.
type masquerade struct {
	gateway, guest netip.Prefix
}

// masqueradeSubnet is 10.0.2.0/24, or the pod network's vmNetworkCIDR:
// the gateway its first address, the guest its second, as upstream.
func masqueradeSubnet(vmi *kubevirtv1.VirtualMachineInstance) (masquerade, error) {
	def := masquerade{gateway: MasqueradeGateway, guest: MasqueradeGuest}
	for _, n := range vmi.Spec.Networks {
		if n.Pod == nil || n.Pod.VMNetworkCIDR == "" {
			continue
		}
		p, err := netip.ParsePrefix(n.Pod.VMNetworkCIDR)
		if err != nil || !p.Addr().Is4() || p.Bits() > 30 {
			return def, fmt.Errorf("vmNetworkCIDR %q is not an IPv4 network with room for a gateway and a guest", n.Pod.VMNetworkCIDR)
		}
		base := p.Masked().Addr()
		gw := base.Next()
		return masquerade{gateway: netip.PrefixFrom(gw, p.Bits()), guest: netip.PrefixFrom(gw.Next(), p.Bits())}, nil
	}
	return def, nil
}
