package domain

import (
	"fmt"
	"strconv"
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
	device := []string{qemuNICModel(iface.Model), "netdev=" + netdev, "id=ua-" + iface.Name, "mac=" + InterfaceMAC(vmi, iface)}
	if plan.MTU > 0 && qemuNICModel(iface.Model) == "virtio-net-pci" {
		device = append(device, "host_mtu="+strconv.Itoa(plan.MTU))
	}
	if iface.BootOrder != nil {
		device = append(device, "bootindex="+strconv.Itoa(int(*iface.BootOrder)))
	}
	if dom.QEMUCommandline == nil {
		dom.QEMUCommandline = &libvirtxml.DomainQEMUCommandline{}
	}
	dom.QEMUCommandline.Args = append(dom.QEMUCommandline.Args,
		libvirtxml.DomainQEMUCommandlineArg{Value: "-netdev"},
		libvirtxml.DomainQEMUCommandlineArg{Value: "stream,id=" + netdev + ",server=off,addr.type=unix,addr.path=" + qemuEscape(plan.Socket)},
		libvirtxml.DomainQEMUCommandlineArg{Value: "-device"},
		libvirtxml.DomainQEMUCommandlineArg{Value: strings.Join(device, ",")})
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
