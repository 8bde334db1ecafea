package domain

import (
	"encoding/json"
	"fmt"
	"strings"

	"libvirt.org/go/libvirtxml"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/podnet"
)

// addPasstDevice gives the guest a network device connected to the
// launcher's passt through its socket. libvirt 9.0 has no interface type
// for that (its passt backend came in 9.2), so the device is qemu's own,
// passed on the command line: `-netdev stream` to passt's socket, and the
// interface's model with its MAC, alias and boot order. libvirt does not
// list it among the domain's interfaces; the node agent reports it from
// the plan, as it does every interface.
func addPasstDevice(dom *libvirtxml.Domain, vmi *kubevirtv1.VirtualMachineInstance, iface kubevirtv1.Interface, plan podnet.Interface) error {
	if plan.Socket == "" {
		return fmt.Errorf("interface %s: passt is not running for it in the launcher", iface.Name)
	}
	netdev := "hostua-" + iface.Name
	device := map[string]any{"driver": qemuNICModel(iface.Model), "netdev": netdev, "id": "ua-" + iface.Name, "mac": InterfaceMAC(vmi, iface)}
	if plan.MTU > 0 && device["driver"] == "virtio-net-pci" {
		device["host_mtu"] = plan.MTU
	}
	if iface.BootOrder != nil {
		device["bootindex"] = *iface.BootOrder
	}
	if iface.ACPIIndex > 0 {
		device["acpi-index"] = iface.ACPIIndex
	}
	if err := passtLacks(vmi, iface); err != nil {
		return err
	}
	// JSON, as libvirt writes its own devices: qemu creates them in
	// command-line order only within one syntax, and this one must come
	// after libvirt's, which hold fixed PCI addresses.
	deviceJSON, err := json.Marshal(device)
	if err != nil {
		return err
	}
	if dom.QEMUCommandline == nil {
		dom.QEMUCommandline = &libvirtxml.DomainQEMUCommandline{}
	}
	dom.QEMUCommandline.Args = append(dom.QEMUCommandline.Args,
		libvirtxml.DomainQEMUCommandlineArg{Value: "-netdev"},
		libvirtxml.DomainQEMUCommandlineArg{Value: "stream,id=" + netdev + ",server=off,addr.type=unix,addr.path=" + qemuEscape(plan.Socket)},
		libvirtxml.DomainQEMUCommandlineArg{Value: "-device"},
		libvirtxml.DomainQEMUCommandlineArg{Value: string(deviceJSON)})
	return nil
}

// qemuNICModel is qemu's device for a KubeVirt interface model.
func qemuNICModel(model string) string {
	if model == "" || model == "virtio" {
		return "virtio-net-pci"
	}
	return model
}

// qemuEscape doubles commas, qemu's option separator.
func qemuEscape(s string) string { return strings.ReplaceAll(s, ",", ",,") }

// passtLacks refuses what a passt interface, a device on qemu's command
// line here, cannot honour: libvirt places no PCI address on it, sets no
// link state, opens no queues; passt forwards single ports only.
func passtLacks(vmi *kubevirtv1.VirtualMachineInstance, iface kubevirtv1.Interface) error {
	what := ""
	switch {
	case iface.PciAddress != "":
		what = "a PCI address"
	case iface.State == kubevirtv1.InterfaceStateLinkDown:
		what = "link state down"
	case podnet.MultiQueue(vmi):
		what = "networkInterfaceMultiqueue"
	case len(iface.PortRanges) > 0:
		what = "port ranges"
	case transitional(vmi):
		what = "useVirtioTransitional"
	default:
		return nil
	}
	return notYet(fmt.Sprintf("interface %s: %s with the passt binding", iface.Name, what))
}
