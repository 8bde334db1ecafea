package domain

import (
	"crypto/sha256"
	"fmt"

	"github.com/virtflow/virtflow/node/podnet"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

// addDisks turns spec.domain.devices.disks into libvirt disks, each backed
// by the resolved source of the volume of the same name.
func addDisks(dom *libvirtxml.Domain, in Input) error {
	volumes := map[string]bool{}
	for _, v := range in.VMI.Spec.Volumes {
		volumes[v.Name] = true
	}
	next := map[string]int{}
	for _, d := range in.VMI.Spec.Domain.Devices.Disks {
		if !volumes[d.Name] {
			return fmt.Errorf("disk %s has no volume of the same name in spec.volumes", d.Name)
		}
		src, ok := in.Sources[d.Name]
		if !ok {
			return fmt.Errorf("volume %s of disk %s was not resolved to a file or device on the node", d.Name, d.Name)
		}
		disk, err := diskOf(d, src, next)
		if err != nil {
			return err
		}
		if disk.Target.Bus == string(kubevirtv1.DiskBusVirtio) && transitional(in.VMI) {
			disk.Model = "virtio-transitional"
		}
		if err := diskOptions(&disk, d, &in.VMI.Spec.Domain, guestVCPUs(dom.VCPU)); err != nil {
			return err
		}
		dom.Devices.Disks = append(dom.Devices.Disks, disk)
	}
	return nil
}

// transitional tells whether the guest predates virtio 1.0.
func transitional(vmi *kubevirtv1.VirtualMachineInstance) bool {
	return virtioModel(&vmi.Spec.Domain) == "virtio-transitional"
}

func diskOf(d kubevirtv1.Disk, src Source, next map[string]int) (libvirtxml.DomainDisk, error) {
	device, bus, readOnly, err := deviceAndBus(d)
	if err != nil {
		return libvirtxml.DomainDisk{}, err
	}
	// A NoCloud ISO goes where its disk says, as upstream's: a cdrom, or a
	// read-only disk on its bus (virtio, which every cloud image reads).
	if src.CDROM {
		readOnly = true
	}
	dev := nextTarget(bus, next)
	format := src.Format
	if format == "" {
		format = "raw"
	}
	disk := libvirtxml.DomainDisk{
		Device: device,
		Driver: &libvirtxml.DomainDiskDriver{Name: "qemu", Type: format, Cache: cacheOf(d), Discard: "unmap"},
		Target: &libvirtxml.DomainDiskTarget{Dev: dev, Bus: string(bus)},
		Alias:  &libvirtxml.DomainAlias{Name: "ua-" + d.Name},
		Serial: d.Serial,
	}
	if src.Block {
		disk.Source = &libvirtxml.DomainDiskSource{Block: &libvirtxml.DomainDiskSourceBlock{Dev: src.Path}}
	} else {
		disk.Source = &libvirtxml.DomainDiskSource{File: &libvirtxml.DomainDiskSourceFile{File: src.Path}}
	}
	if readOnly || src.ReadOnly {
		disk.ReadOnly = &libvirtxml.DomainDiskReadOnly{}
	}
	if d.BootOrder != nil {
		disk.Boot = &libvirtxml.DomainDeviceBoot{Order: *d.BootOrder}
	}
	return disk, nil
}

// deviceAndBus applies upstream's defaults: virtio for disks, sata for
// cdroms, and refuses buses KubeVirt does not support.
func deviceAndBus(d kubevirtv1.Disk) (string, kubevirtv1.DiskBus, bool, error) {
	switch {
	case d.CDRom != nil:
		bus := d.CDRom.Bus
		if bus == "" {
			bus = kubevirtv1.DiskBusSATA
		}
		if bus == kubevirtv1.DiskBusVirtio {
			return "", "", false, fmt.Errorf("disk %s: bus virtio is not supported for cdroms", d.Name)
		}
		// Read-only unless the spec says otherwise, as upstream.
		ro := d.CDRom.ReadOnly == nil || *d.CDRom.ReadOnly
		return "cdrom", bus, ro, validBus(d.Name, bus)
	case d.LUN != nil:
		return "", "", false, fmt.Errorf("disk %s: lun disks are not supported", d.Name)
	default:
		bus := kubevirtv1.DiskBusVirtio
		ro := false
		if d.Disk != nil {
			if d.Disk.Bus != "" {
				bus = d.Disk.Bus
			}
			ro = d.Disk.ReadOnly
		}
		return "disk", bus, ro, validBus(d.Name, bus)
	}
}

func validBus(name string, bus kubevirtv1.DiskBus) error {
	switch bus {
	case kubevirtv1.DiskBusVirtio, kubevirtv1.DiskBusSATA, kubevirtv1.DiskBusSCSI, kubevirtv1.DiskBusUSB:
		return nil
	}
	return fmt.Errorf("disk %s: unsupported disk bus %q; supported: virtio, sata, scsi, usb", name, bus)
}

func cacheOf(d kubevirtv1.Disk) string {
	if d.Cache != "" {
		return string(d.Cache)
	}
	return "none"
}

// nextTarget names the next disk on bus, counting in next the disks
// named so far by prefix: vda, vdb for virtio, sda, sdb for the others.
func nextTarget(bus kubevirtv1.DiskBus, next map[string]int) string {
	prefix := map[kubevirtv1.DiskBus]string{kubevirtv1.DiskBusVirtio: "vd"}[bus]
	if prefix == "" {
		prefix = "sd"
	}
	dev := prefix + letters(next[prefix])
	next[prefix]++
	return dev
}

// letters names the n-th device the way Linux does: a..z, aa..az, ...
func letters(n int) string {
	s := ""
	for n >= 0 {
		s = string(rune('a'+n%26)) + s
		n = n/26 - 1
	}
	return s
}

// addInterfaces connects each interface as the node agent prepared it: a
// tap device it created in the pod (masquerade, bridge), or the launcher's
// passt. An interface without a prepared network is refused rather than
// given qemu's user-mode networking; only a simulated domain, which runs
// no guest, takes it unconnected.
func addInterfaces(dom *libvirtxml.Domain, in Input) error {
	for _, iface := range in.VMI.Spec.Domain.Devices.Interfaces {
		plan := planOf(in.Network, iface.Name)
		if plan != nil && plan.Binding == podnet.Passt {
			if err := addPasstDevice(dom, in.VMI, iface, *plan); err != nil {
				return err
			}
			continue
		}
		model := iface.Model
		if model == "" {
			model = "virtio"
		}
		if model == "virtio" && transitional(in.VMI) {
			model = "virtio-transitional"
		}
		i := libvirtxml.DomainInterface{
			Model: &libvirtxml.DomainInterfaceModel{Type: model},
			Alias: &libvirtxml.DomainAlias{Name: "ua-" + iface.Name},
			MAC:   &libvirtxml.DomainInterfaceMAC{Address: InterfaceMAC(in.VMI, iface)},
		}
		if err := connectInterface(&i, iface.Name, plan, in.Type); err != nil {
			return err
		}
		if iface.BootOrder != nil {
			i.Boot = &libvirtxml.DomainDeviceBoot{Order: *iface.BootOrder}
		}
		if err := interfaceOptions(&i, iface, in.VMI); err != nil {
			return err
		}
		dom.Devices.Interfaces = append(dom.Devices.Interfaces, i)
	}
	return nil
}

// planOf is what the node agent prepared for the interface, nil if nothing.
func planOf(network podnet.Plan, name string) *podnet.Interface {
	for k := range network.Interfaces {
		if network.Interfaces[k].Name == name {
			return &network.Interfaces[k]
		}
	}
	return nil
}

func connectInterface(i *libvirtxml.DomainInterface, name string, plan *podnet.Interface, typ Type) error {
	switch {
	case plan == nil && typ == Simulated:
		i.Source = &libvirtxml.DomainInterfaceSource{Ethernet: &libvirtxml.DomainInterfaceSourceEthernet{}}
		return nil
	case plan == nil:
		return fmt.Errorf("interface %s is not connected to any network on this node", name)
	}
	i.Source = &libvirtxml.DomainInterfaceSource{Ethernet: &libvirtxml.DomainInterfaceSourceEthernet{}}
	i.Target = &libvirtxml.DomainInterfaceTarget{Dev: plan.Tap, Managed: "no"}
	if plan.MTU > 0 {
		i.MTU = &libvirtxml.DomainInterfaceMTU{Size: uint(plan.MTU)}
	}
	return nil
}

// InterfaceMAC is the interface's MAC address: the one the spec asks for,
// else one derived from the VMI's namespace, name and interface name.
// Derived, not left to libvirt, so the node agent can report it without
// asking the domain, and a VM keeps its MAC across restarts. The first
// octet is locally administered and unicast.
func InterfaceMAC(vmi *kubevirtv1.VirtualMachineInstance, iface kubevirtv1.Interface) string {
	if iface.MacAddress != "" {
		return iface.MacAddress
	}
	sum := sha256.Sum256([]byte(vmi.Namespace + "/" + vmi.Name + "/" + iface.Name))
	return fmt.Sprintf("02:%02x:%02x:%02x:%02x:%02x", sum[0], sum[1], sum[2], sum[3], sum[4])
}
