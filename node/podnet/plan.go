// Package podnet connects a guest to its launcher pod's network as
// upstream's bindings do. The node agent, privileged, prepares the pod's
// network namespace (Configure: bridge, tap device owned by the launcher's
// user, NAT); the launcher, unprivileged, answers the guest's DHCP
// (ServeDHCP) and gives libvirt the tap. Everything lives in the pod's
// namespace, so it goes with the pod.
package podnet

import (
	"fmt"
	"net/netip"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Binding is how an interface is connected to its network.
type Binding string

const (
	// Masquerade puts the guest behind NAT to the pod's address.
	Masquerade Binding = "masquerade"
	// Bridge hands the pod's address to the guest.
	Bridge Binding = "bridge"
	// Passt has passt, run by the launcher, carry the guest's traffic
	// through the pod's sockets.
	Passt Binding = "passt"
)

// Addresses of a masquerade interface, as upstream's.
var (
	// MasqueradeGateway is the pod-side bridge's address.
	MasqueradeGateway = netip.MustParsePrefix("10.0.2.1/24")
	// MasqueradeGuest is the address the guest gets by DHCP.
	MasqueradeGuest = netip.MustParsePrefix("10.0.2.2/24")
	// bridgeLinkLocal is what the bridge of a bridge binding keeps so that
	// the launcher's DHCP server has an address to answer from.
	bridgeLinkLocal = netip.MustParsePrefix("169.254.75.10/32")
)

// PodInterface is the pod's own interface, the CNI's eth0.
const PodInterface = "eth0"

// Plan is what the node agent prepared for one VMI's interfaces, handed to
// the launcher in its configuration.
type Plan struct {
	Interfaces []Interface `json:"interfaces,omitempty"`
}

// Interface is one guest interface's connection.
type Interface struct {
	// Name is the VMI's interface name.
	Name    string  `json:"name"`
	Binding Binding `json:"binding"`
	// MAC is the guest's MAC address.
	MAC string `json:"mac"`
	// Tap is the tap device qemu opens (masquerade and bridge).
	Tap string `json:"tap,omitempty"`
	// Bridge is the pod-side bridge the tap hangs on, where DHCP is served.
	Bridge string `json:"bridge,omitempty"`
	// GuestAddress, Gateway and ServerAddress are what DHCP hands out, and
	// from where.
	GuestAddress  netip.Prefix `json:"guestAddress,omitzero"`
	Gateway       netip.Addr   `json:"gateway,omitzero"`
	ServerAddress netip.Addr   `json:"serverAddress,omitzero"`
	// MTU is the pod interface's, given to the guest too.
	MTU int `json:"mtu,omitempty"`
	// Ports and PortRanges are the masquerade interface's forwarded
	// ports; all when both are empty.
	Ports      []kubevirtv1.Port      `json:"ports,omitempty"`
	PortRanges []kubevirtv1.PortRange `json:"portRanges,omitempty"`
	// DHCPOptions are the interface's extra DHCP options.
	DHCPOptions *kubevirtv1.DHCPOptions `json:"dhcpOptions,omitempty"`
	// Hostname is the guest's host name, sent by DHCP.
	Hostname string `json:"hostname,omitempty"`
	// Socket is where the launcher's passt listens for the guest's
	// network device (passt); the launcher sets it once passt runs.
	Socket string `json:"socket,omitempty"`
}

// DHCP tells whether the launcher answers this interface's DHCP: there is
// an address to hand out (a secondary network without IPAM has none).
func (i Interface) DHCP() bool {
	return (i.Binding == Masquerade || i.Binding == Bridge) && i.GuestAddress.IsValid()
}

// podInterfaceFor returns the interface of the VMI on the pod network,
// if any, and its binding.
func podInterfaceFor(vmi *kubevirtv1.VirtualMachineInstance) (kubevirtv1.Interface, Binding, bool, error) {
	pod := ""
	for _, n := range vmi.Spec.Networks {
		if n.Pod != nil {
			pod = n.Name
		}
	}
	for _, iface := range vmi.Spec.Domain.Devices.Interfaces {
		if iface.Name != pod || pod == "" {
			continue
		}
		b, err := bindingOf(iface)
		return iface, b, true, err
	}
	return kubevirtv1.Interface{}, "", false, nil
}

// bindingOf names the interface's binding; the ones this node cannot
// connect are refused, never replaced by another.
func bindingOf(iface kubevirtv1.Interface) (Binding, error) {
	switch {
	case iface.Masquerade != nil:
		return Masquerade, nil
	case iface.Bridge != nil:
		return Bridge, nil
	case iface.PasstBinding != nil:
		return Passt, nil
	case iface.Binding != nil:
		return "", fmt.Errorf("interface %s: network binding plugin %q is not available on this node", iface.Name, iface.Binding.Name)
	case iface.SRIOV != nil:
		return "", fmt.Errorf("interface %s: SR-IOV needs a virtual function, and this node has none", iface.Name)
	}
	return "", fmt.Errorf("interface %s has no binding method", iface.Name)
}

// Hostname is the guest's host name as upstream derives it: the VMI's
// spec.hostname, else its name.
func Hostname(vmi *kubevirtv1.VirtualMachineInstance) string {
	if vmi.Spec.Hostname != "" {
		return vmi.Spec.Hostname
	}
	return vmi.Name
}
