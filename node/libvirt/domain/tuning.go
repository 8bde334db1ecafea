package domain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/virtflow/virtflow/node/podnet"

	"k8s.io/apimachinery/pkg/api/resource"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

// vcpusOf counts the vCPUs the guest starts with and the most it may
// have: with spec.domain.cpu.maxSockets, sockets can be added live up to
// that many, as upstream's CPU hotplug lays the topology out.
func vcpusOf(cpu *kubevirtv1.CPU, t *topology) *libvirtxml.DomainVCPU {
	current := t.sockets * t.cores * t.threads
	if cpu == nil || cpu.MaxSockets == 0 || uint(cpu.MaxSockets) <= t.sockets {
		return &libvirtxml.DomainVCPU{Value: current}
	}
	t.sockets = uint(cpu.MaxSockets)
	return &libvirtxml.DomainVCPU{Placement: "static", Current: current, Value: t.sockets * t.cores * t.threads}
}

// addHugepages backs the guest's memory with huge pages of the size the
// spec asks for; the launcher pod requests them from the node.
func addHugepages(dom *libvirtxml.Domain, spec *kubevirtv1.DomainSpec) error {
	if spec.Memory == nil || spec.Memory.Hugepages == nil {
		return nil
	}
	size, err := resource.ParseQuantity(spec.Memory.Hugepages.PageSize)
	if err != nil {
		return fmt.Errorf("spec.domain.memory.hugepages.pageSize %q: %w", spec.Memory.Hugepages.PageSize, err)
	}
	dom.MemoryBacking = &libvirtxml.DomainMemoryBacking{MemoryHugePages: &libvirtxml.DomainMemoryHugepages{
		Hugepages: []libvirtxml.DomainMemoryHugepage{{Size: uint(size.Value() / 1024), Unit: "KiB"}},
	}}
	return nil
}

// addPinning pins each vCPU of a VMI with dedicated CPUs to one of the
// CPUs the kubelet's CPU manager gave its pod, the emulator thread to the
// extra one when isolated, and gives the realtime mask's vCPUs the FIFO
// scheduler, as upstream.
func addPinning(dom *libvirtxml.Domain, in Input) error {
	cpu := in.VMI.Spec.Domain.CPU
	if cpu == nil || !cpu.DedicatedCPUPlacement {
		return nil
	}
	// The pod has CPUs for the vCPUs the guest starts with, not for the
	// sockets maxSockets leaves room for.
	vcpus := int(guestVCPUs(dom.VCPU))
	need := vcpus
	if cpu.IsolateEmulatorThread {
		need++
	}
	if len(in.CPUSet) < need {
		return fmt.Errorf("spec.domain.cpu.dedicatedCpuPlacement: the pod has %d dedicated CPUs, the guest needs %d", len(in.CPUSet), need)
	}
	tune := &libvirtxml.DomainCPUTune{}
	for v := 0; v < vcpus; v++ {
		tune.VCPUPin = append(tune.VCPUPin, libvirtxml.DomainCPUTuneVCPUPin{VCPU: uint(v), CPUSet: strconv.Itoa(in.CPUSet[v])})
	}
	if cpu.IsolateEmulatorThread {
		tune.EmulatorPin = &libvirtxml.DomainCPUTuneEmulatorPin{CPUSet: strconv.Itoa(in.CPUSet[need-1])}
	}
	if rt := cpu.Realtime; rt != nil {
		mask := rt.Mask
		if mask == "" {
			mask = fmt.Sprintf("0-%d", vcpus-1)
		}
		one := 1
		tune.VCPUSched = []libvirtxml.DomainCPUTuneVCPUSched{{VCPUs: mask, Scheduler: "fifo", Priority: &one}}
		dom.Features.PMU = &libvirtxml.DomainFeatureState{State: "off"}
	}
	dom.CPUTune = tune
	return nil
}

// addIOThreads gives virtio disks I/O threads as spec.domain.
// ioThreadsPolicy says: one shared thread plus one per dedicated disk
// (shared, and the default when a disk asks for its own), a pool of up to
// twice the vCPUs (auto), or the supplemental pool's count.
func addIOThreads(dom *libvirtxml.Domain, spec *kubevirtv1.DomainSpec) {
	policy := spec.IOThreadsPolicy
	var disks []*libvirtxml.DomainDisk
	dedicated := map[*libvirtxml.DomainDisk]bool{}
	for i, d := range spec.Devices.Disks {
		if i >= len(dom.Devices.Disks) || dom.Devices.Disks[i].Target.Bus != "virtio" {
			continue
		}
		disk := &dom.Devices.Disks[i]
		disks = append(disks, disk)
		dedicated[disk] = d.DedicatedIOThread != nil && *d.DedicatedIOThread
		if dedicated[disk] && policy == nil {
			shared := kubevirtv1.IOThreadsPolicyShared
			policy = &shared
		}
	}
	if policy == nil || len(disks) == 0 {
		return
	}
	pool := uint(1)
	switch *policy {
	case kubevirtv1.IOThreadsPolicyAuto:
		pool = min(2*guestVCPUs(dom.VCPU), uint(len(disks)))
	case kubevirtv1.IOThreadsPolicySupplementalPool:
		if spec.IOThreads != nil && spec.IOThreads.SupplementalPoolThreadCount != nil {
			pool = uint(*spec.IOThreads.SupplementalPoolThreadCount)
		}
	}
	next, n := pool, uint(0)
	for _, disk := range disks {
		var id uint
		if dedicated[disk] {
			next++
			id = next
		} else {
			id = n%pool + 1
			n++
		}
		disk.Driver.IOThread = &id
	}
	dom.IOThreads = next
}

// diskOptions applies a disk's I/O mode, error policy, block sizes,
// sharing, queues and PCI address.
func diskOptions(disk *libvirtxml.DomainDisk, d kubevirtv1.Disk, spec *kubevirtv1.DomainSpec, vcpus uint) error {
	disk.Driver.IO = string(d.IO)
	if d.ErrorPolicy != nil {
		disk.Driver.ErrorPolicy = string(*d.ErrorPolicy)
	}
	if bs := d.BlockSize; bs != nil && bs.Custom != nil {
		disk.BlockIO = &libvirtxml.DomainDiskBlockIO{LogicalBlockSize: bs.Custom.Logical, PhysicalBlockSize: bs.Custom.Physical}
	}
	if d.CDRom != nil && d.CDRom.Tray != "" {
		disk.Target.Tray = string(d.CDRom.Tray)
	}
	if d.Shareable != nil && *d.Shareable {
		disk.Shareable = &libvirtxml.DomainDiskShareable{}
		disk.Driver.Cache = "none"
	}
	if q := spec.Devices.BlockMultiQueue; q != nil && *q && disk.Target.Bus == "virtio" {
		disk.Driver.Queues = &vcpus
	}
	if d.Disk != nil && d.Disk.PciAddress != "" {
		addr, err := pciAddress(d.Disk.PciAddress)
		if err != nil {
			return fmt.Errorf("disk %s: %w", d.Name, err)
		}
		disk.Address = addr
	}
	return nil
}

// pciAddress parses upstream's "dddd:bb:ss.f".
func pciAddress(s string) (*libvirtxml.DomainAddress, error) {
	var dom, bus, slot, fn uint
	if _, err := fmt.Sscanf(strings.ToLower(s), "%04x:%02x:%02x.%x", &dom, &bus, &slot, &fn); err != nil {
		return nil, fmt.Errorf("malformed PCI address %s", s)
	}
	return &libvirtxml.DomainAddress{PCI: &libvirtxml.DomainAddressPCI{Domain: &dom, Bus: &bus, Slot: &slot, Function: &fn}}, nil
}

// guestVCPUs is how many vCPUs the guest starts with.
func guestVCPUs(v *libvirtxml.DomainVCPU) uint {
	if v == nil {
		return 1
	}
	if v.Current != 0 {
		return v.Current
	}
	return v.Value
}

// interfaceOptions applies an interface's queues, ACPI index and PCI
// address.
func interfaceOptions(i *libvirtxml.DomainInterface, iface kubevirtv1.Interface, vmi *kubevirtv1.VirtualMachineInstance) error {
	// The node agent made the tap multi-queue for this (podnet): libvirt
	// then opens it once per queue. libvirt chooses vhost-net itself.
	if podnet.MultiQueue(vmi) && strings.HasPrefix(i.Model.Type, "virtio") {
		i.Driver = &libvirtxml.DomainInterfaceDriver{Queues: podnet.NICQueues(vmi)}
	}
	if iface.State == kubevirtv1.InterfaceStateLinkDown {
		i.Link = &libvirtxml.DomainInterfaceLink{State: "down"}
	}
	if iface.ACPIIndex > 0 {
		i.ACPI = &libvirtxml.DomainDeviceACPI{Index: uint(iface.ACPIIndex)}
	}
	if iface.PciAddress != "" {
		addr, err := pciAddress(iface.PciAddress)
		if err != nil {
			return fmt.Errorf("interface %s: %w", iface.Name, err)
		}
		i.Address = addr
	}
	return nil
}
