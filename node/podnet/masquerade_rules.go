package podnet

import (
	"fmt"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// masqueradeRules is the nftables ruleset of a masquerade interface, in
// the pod's network namespace, as upstream's chains: the guest's traffic
// leaves with the pod's address; what reaches the pod (all of it, or the
// interface's ports) goes to the guest; and what the pod sends itself on
// 127.0.0.1 (port-forward) reaches the guest too, answered back through
// the bridge's address.
func masqueradeRules(bridge string, ports []kubevirtv1.Port) string {
	guest, gw := MasqueradeGuest.Addr(), MasqueradeGateway.Addr()
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("table ip nat {")
	line("  chain prerouting { type nat hook prerouting priority dstnat; policy accept;")
	line("    iifname %q counter jump KUBEVIRT_PREINBOUND", PodInterface)
	line("  }")
	line("  chain input { type nat hook input priority 100; policy accept; }")
	line("  chain output { type nat hook output priority -100; policy accept;")
	for _, m := range portMatches(ports) {
		line("    ip daddr 127.0.0.1 %scounter dnat to %s", m, guest)
	}
	line("  }")
	line("  chain postrouting { type nat hook postrouting priority srcnat; policy accept;")
	line("    ip saddr %s counter masquerade", guest)
	line("    oifname %q counter jump KUBEVIRT_POSTINBOUND", bridge)
	line("  }")
	line("  chain KUBEVIRT_PREINBOUND {")
	for _, m := range portMatches(ports) {
		line("    %scounter dnat to %s", m, guest)
	}
	line("  }")
	line("  chain KUBEVIRT_POSTINBOUND {")
	for _, m := range portMatches(ports) {
		line("    %sip saddr 127.0.0.1 counter snat to %s", m, gw)
	}
	line("  }")
	line("}")
	return b.String()
}

// portMatches are the rule prefixes selecting the forwarded ports: one
// empty match (everything) when the interface lists none.
func portMatches(ports []kubevirtv1.Port) []string {
	if len(ports) == 0 {
		return []string{""}
	}
	out := make([]string, 0, len(ports))
	for _, p := range ports {
		proto := strings.ToLower(p.Protocol)
		if proto == "" {
			proto = "tcp"
		}
		out = append(out, fmt.Sprintf("%s dport %d ", proto, p.Port))
	}
	return out
}
