package podnet

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/netip"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/wire/launcherpod"
)

// secondaryNetworks are the VMI's Multus networks other than a default.
func secondaryNetworks(vmi *kubevirtv1.VirtualMachineInstance) []kubevirtv1.Network {
	var out []kubevirtv1.Network
	for _, n := range vmi.Spec.Networks {
		if n.Multus != nil && !n.Multus.Default {
			out = append(out, n)
		}
	}
	return out
}

// configureSecondary connects a guest interface to the interface Multus
// made in the pod for its network, with bridge binding, the one binding
// secondary networks take here: the pod interface joins a bridge with the
// guest's tap and hands the guest its address, if its IPAM gave one.
func configureSecondary(ctx context.Context, ns Netns, vmi *kubevirtv1.VirtualMachineInstance, n kubevirtv1.Network, index int,
	macOf func(kubevirtv1.Interface) string, owner Owner) (Interface, error) {
	var iface *kubevirtv1.Interface
	for i := range vmi.Spec.Domain.Devices.Interfaces {
		if vmi.Spec.Domain.Devices.Interfaces[i].Name == n.Name {
			iface = &vmi.Spec.Domain.Devices.Interfaces[i]
		}
	}
	if iface == nil {
		return Interface{}, fmt.Errorf("network %s has no interface", n.Name)
	}
	if iface.Bridge == nil {
		return Interface{}, fmt.Errorf("interface %s: only bridge binding is available on a secondary network on this node", n.Name)
	}
	podIface := launcherpod.SecondaryInterface(n.Name)
	plan := Interface{Name: n.Name, Binding: Bridge, MAC: macOf(*iface), Hostname: Hostname(vmi),
		Bridge: "k6t-" + podIface[3:], Tap: "tap" + podIface[3:], DHCPOptions: iface.DHCPOptions}
	if err := connectSecondary(ctx, ns, podIface, index, owner, &plan); err != nil {
		return Interface{}, fmt.Errorf("connecting interface %s to network %s: %w", n.Name, n.Multus.NetworkName, err)
	}
	return plan, nil
}

func connectSecondary(ctx context.Context, ns Netns, podIface string, index int, owner Owner, plan *Interface) error {
	l, err := showLink(ctx, ns, podIface)
	if err != nil {
		return fmt.Errorf("the pod has no interface %s from Multus: %w", podIface, err)
	}
	plan.MTU = l.MTU
	for _, a := range l.AddrInfo {
		if a.Family == "inet" {
			if plan.GuestAddress, err = netip.ParsePrefix(fmt.Sprintf("%s/%d", a.Local, a.PrefixLen)); err != nil {
				return err
			}
			break
		}
	}
	// Each bridge that serves DHCP answers from an address of its own.
	server := netip.MustParsePrefix(fmt.Sprintf("169.254.75.%d/32", 11+index))
	if err := ensureBridge(ctx, ns, plan.Bridge, l.MTU, server); err != nil {
		return err
	}
	if err := ensureTap(ctx, ns, plan.Tap, plan.Bridge, l.MTU, owner); err != nil {
		return err
	}
	// Multus gave the pod interface the guest's MAC; the guest keeps it.
	for _, s := range [][]string{
		{"addr", "flush", "dev", podIface},
		{"link", "set", "dev", podIface, "address", randomMAC()},
		{"link", "set", "dev", podIface, "master", plan.Bridge, "up"},
	} {
		if _, err := ns.ip(ctx, s...); err != nil {
			return err
		}
	}
	plan.ServerAddress = server.Addr()
	return nil
}

// randomMAC is a locally administered unicast MAC for the pod side of a
// bridged interface, which must not answer as the guest.
func randomMAC() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	b[0] = (b[0] | 0x02) &^ 0x01
	return net.HardwareAddr(b).String()
}
