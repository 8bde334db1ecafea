package podnet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strconv"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Names in the pod's namespace, as upstream's.
const (
	// PodBridge is the bridge the guest's tap hangs on.
	PodBridge = "k6t-eth0"
	// podTap is the pod network interface's tap device.
	podTap = "tap0"
	// podNIC is what the pod's eth0 is renamed to when a bridge binding
	// enslaves it.
	podNIC = "eth0-nic"
	// bridgeMAC is the pod-side bridge's MAC; admission refuses it for
	// a guest.
	bridgeMAC = "02:00:00:00:00:00"
)

// Owner is the user qemu runs as, who must be able to open the tap.
type Owner struct {
	UID, GID int
	// MultiQueue makes the taps multi-queue, for a guest whose NICs get
	// a queue per vCPU: QEMU then opens each tap once per queue.
	MultiQueue bool
}

// Configure prepares the pod's namespace for the VMI's pod network
// interface and returns the plan the launcher follows. It may run again
// on a namespace it prepared (a restarted node agent) and leaves it as
// the first run did. macOf gives an interface's guest MAC address.
func Configure(ctx context.Context, ns Netns, vmi *kubevirtv1.VirtualMachineInstance, macOf func(kubevirtv1.Interface) string, owner Owner) (Plan, error) {
	owner.MultiQueue = MultiQueue(vmi)
	plan, err := configurePodNetwork(ctx, ns, vmi, macOf, owner)
	if err != nil {
		return Plan{}, err
	}
	for i, n := range secondaryNetworks(vmi) {
		sec, err := configureSecondary(ctx, ns, vmi, n, i, macOf, owner)
		if err != nil {
			return Plan{}, err
		}
		plan.Interfaces = append(plan.Interfaces, sec)
	}
	return plan, nil
}

func configurePodNetwork(ctx context.Context, ns Netns, vmi *kubevirtv1.VirtualMachineInstance, macOf func(kubevirtv1.Interface) string, owner Owner) (Plan, error) {
	iface, binding, ok, err := podInterfaceFor(vmi)
	if err != nil || !ok {
		return Plan{}, err
	}
	// Ports below 1024: the launcher's DHCP server, and passt's forwards.
	if err := ns.sysctl(ctx, "net.ipv4.ip_unprivileged_port_start", "0"); err != nil {
		return Plan{}, err
	}
	plan := Interface{Name: iface.Name, Binding: binding, MAC: macOf(iface), Hostname: Hostname(vmi),
		Ports: iface.Ports, PortRanges: iface.PortRanges, DHCPOptions: iface.DHCPOptions}
	switch binding {
	case Masquerade:
		var subnet masquerade
		if subnet, err = masqueradeSubnet(vmi); err == nil {
			err = configureMasquerade(ctx, ns, &plan, subnet, owner)
		}
	case Bridge:
		err = configureBridge(ctx, ns, &plan, owner)
	case Passt:
		err = configurePasst(ctx, ns, &plan, owner)
	}
	if err != nil {
		return Plan{}, fmt.Errorf("connecting interface %s (%s binding): %w", iface.Name, binding, err)
	}
	return Plan{Interfaces: []Interface{plan}}, nil
}

// configurePasst creates nothing: passt, in the launcher, uses the pod's
// own interface through sockets. It may answer the guest's pings with
// ICMP echo sockets, which the launcher's group needs, as upstream's.
func configurePasst(ctx context.Context, ns Netns, plan *Interface, owner Owner) error {
	group := strconv.Itoa(owner.GID)
	if err := ns.sysctl(ctx, "net.ipv4.ping_group_range", group+" "+group); err != nil {
		return err
	}
	mtu, err := linkMTU(ctx, ns, PodInterface)
	plan.MTU = mtu
	return err
}

func configureMasquerade(ctx context.Context, ns Netns, plan *Interface, subnet masquerade, owner Owner) error {
	mtu, err := linkMTU(ctx, ns, PodInterface)
	if err != nil {
		return err
	}
	if err := ensureBridge(ctx, ns, PodBridge, mtu, subnet.gateway); err != nil {
		return err
	}
	if err := ensureTap(ctx, ns, podTap, PodBridge, mtu, owner); err != nil {
		return err
	}
	// route_localnet on the bridge only, as upstream: port-forward's
	// 127.0.0.1 traffic, once DNATed, leaves through it.
	for _, kv := range [][2]string{{"net.ipv4.ip_forward", "1"}, {"net.ipv4.conf." + PodBridge + ".route_localnet", "1"}} {
		if err := ns.sysctl(ctx, kv[0], kv[1]); err != nil {
			return err
		}
	}
	// Declaring the table first makes the delete succeed on a first run:
	// the ruleset is replaced whole, atomically.
	rules := "table ip nat {}\ndelete table ip nat\n" + masqueradeRules(PodBridge, subnet, portMatches(plan.Ports, plan.PortRanges))
	if _, err := ns.run(ctx, rules, "nft", "-f", "-"); err != nil {
		return fmt.Errorf("installing NAT rules: %w", err)
	}
	plan.Tap, plan.Bridge, plan.MTU = podTap, PodBridge, mtu
	plan.GuestAddress, plan.Gateway, plan.ServerAddress = subnet.guest, subnet.gateway.Addr(), subnet.gateway.Addr()
	return nil
}

// configureBridge hands the pod's address to the guest: eth0 loses it and
// joins a bridge with the guest's tap, so the guest is on the pod network
// itself.
func configureBridge(ctx context.Context, ns Netns, plan *Interface, owner Owner) error {
	if _, err := ns.ip(ctx, "link", "show", "dev", podNIC); err == nil {
		return fmt.Errorf("the pod interface was already handed to a guest (%s exists) and its address is gone", podNIC)
	}
	mtu, err := linkMTU(ctx, ns, PodInterface)
	if err != nil {
		return err
	}
	addr, err := linkAddress(ctx, ns, PodInterface)
	if err != nil {
		return err
	}
	gw, err := defaultGateway(ctx, ns)
	if err != nil {
		return err
	}
	if err := ensureBridge(ctx, ns, PodBridge, mtu, bridgeLinkLocal); err != nil {
		return err
	}
	if err := ensureTap(ctx, ns, podTap, PodBridge, mtu, owner); err != nil {
		return err
	}
	steps := [][]string{
		{"addr", "flush", "dev", PodInterface},
		{"link", "set", "dev", PodInterface, "down"},
		{"link", "set", "dev", PodInterface, "name", podNIC},
		{"link", "set", "dev", podNIC, "master", PodBridge, "up"},
	}
	for _, s := range steps {
		if _, err := ns.ip(ctx, s...); err != nil {
			return err
		}
	}
	plan.Tap, plan.Bridge, plan.MTU = podTap, PodBridge, mtu
	plan.GuestAddress, plan.Gateway, plan.ServerAddress = addr, gw, bridgeLinkLocal.Addr()
	return nil
}

func ensureBridge(ctx context.Context, ns Netns, name string, mtu int, addr netip.Prefix) error {
	if _, err := ns.ip(ctx, "link", "show", "dev", name); err != nil {
		if _, err := ns.ip(ctx, "link", "add", "name", name, "type", "bridge"); err != nil {
			return err
		}
	}
	for _, s := range [][]string{
		{"link", "set", "dev", name, "address", bridgeMAC, "mtu", strconv.Itoa(mtu)},
		{"addr", "replace", addr.String(), "dev", name},
		{"link", "set", "dev", name, "up"},
	} {
		if _, err := ns.ip(ctx, s...); err != nil {
			return err
		}
	}
	return nil
}

func ensureTap(ctx context.Context, ns Netns, tap, bridge string, mtu int, owner Owner) error {
	if _, err := ns.ip(ctx, "link", "show", "dev", tap); err != nil {
		args := []string{"tuntap", "add", "dev", tap, "mode", "tap", "user", strconv.Itoa(owner.UID), "group", strconv.Itoa(owner.GID), "vnet_hdr"}
		if owner.MultiQueue {
			args = append(args, "multi_queue")
		}
		_, err := ns.ip(ctx, args...)
		if err != nil {
			return err
		}
	}
	_, err := ns.ip(ctx, "link", "set", "dev", tap, "master", bridge, "mtu", strconv.Itoa(mtu), "up")
	return err
}

// MultiQueue tells whether the VMI's virtio NICs get a queue per vCPU:
// networkInterfaceMultiqueue with more than one vCPU, as upstream.
func MultiQueue(vmi *kubevirtv1.VirtualMachineInstance) bool {
	q := vmi.Spec.Domain.Devices.NetworkInterfaceMultiQueue
	return q != nil && *q && NICQueues(vmi) > 1
}

// NICQueues is the queue count of a multi-queue NIC: one per vCPU the
// guest starts with, at most 256 (virtio-net's limit).
func NICQueues(vmi *kubevirtv1.VirtualMachineInstance) uint {
	n := uint(1)
	if c := vmi.Spec.Domain.CPU; c != nil {
		for _, v := range []uint32{c.Sockets, c.Cores, c.Threads} {
			if v > 0 {
				n *= uint(v)
			}
		}
	}
	return min(n, 256)
}

type ipLink struct {
	MTU      int `json:"mtu"`
	AddrInfo []struct {
		Family    string `json:"family"`
		Local     string `json:"local"`
		PrefixLen int    `json:"prefixlen"`
	} `json:"addr_info"`
}

func showLink(ctx context.Context, ns Netns, dev string) (ipLink, error) {
	out, err := ns.ip(ctx, "-j", "addr", "show", "dev", dev)
	if err != nil {
		return ipLink{}, err
	}
	var links []ipLink
	if err := json.Unmarshal([]byte(out), &links); err != nil || len(links) != 1 {
		return ipLink{}, fmt.Errorf("reading %s: unexpected ip output %q", dev, out)
	}
	return links[0], nil
}

func linkMTU(ctx context.Context, ns Netns, dev string) (int, error) {
	l, err := showLink(ctx, ns, dev)
	return l.MTU, err
}

func linkAddress(ctx context.Context, ns Netns, dev string) (netip.Prefix, error) {
	l, err := showLink(ctx, ns, dev)
	if err != nil {
		return netip.Prefix{}, err
	}
	for _, a := range l.AddrInfo {
		if a.Family == "inet" {
			return netip.ParsePrefix(a.Local + "/" + strconv.Itoa(a.PrefixLen))
		}
	}
	return netip.Prefix{}, fmt.Errorf("%s has no IPv4 address", dev)
}

func defaultGateway(ctx context.Context, ns Netns) (netip.Addr, error) {
	out, err := ns.ip(ctx, "-j", "-4", "route", "show", "default")
	if err != nil {
		return netip.Addr{}, err
	}
	var routes []struct {
		Gateway string `json:"gateway"`
	}
	if err := json.Unmarshal([]byte(out), &routes); err != nil || len(routes) == 0 || routes[0].Gateway == "" {
		return netip.Addr{}, fmt.Errorf("the pod has no default gateway (ip route: %q)", out)
	}
	return netip.ParseAddr(routes[0].Gateway)
}
