package virtadmission

import (
	"runtime"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Defaults upstream's mutating webhooks apply.
const (
	DefaultMachineType = "q35"
	defaultNetworkName = "default"
)

// SetVMIDefaults fills what upstream's VMI mutator fills, so the stored
// object says what will actually run.
func SetVMIDefaults(spec *kubevirtv1.VirtualMachineInstanceSpec) {
	AddVolumeDisks(spec)
	setTemplateDefaults(spec)
	setCPUDefaults(spec)
	// Hyper-V enlightenments get the ones they depend on, as upstream's
	// defaults give them, so QEMU does not refuse the guest later.
	if f := spec.Domain.Features; f != nil && f.Hyperv != nil {
		*spec = *withHypervDefaults(spec)
	}
	d := &spec.Domain
	if d.Memory != nil && d.Memory.Guest != nil && d.Resources.Requests.Memory().IsZero() {
		if d.Resources.Requests == nil {
			d.Resources.Requests = corev1.ResourceList{}
		}
		d.Resources.Requests[corev1.ResourceMemory] = d.Memory.Guest.DeepCopy()
	}
}

// setTemplateDefaults are the VMI defaults besides the CPU topology and
// the memory request, which come last (an instancetype may set them).
func setTemplateDefaults(spec *kubevirtv1.VirtualMachineInstanceSpec) {
	d := &spec.Domain
	if d.Machine == nil || d.Machine.Type == "" {
		d.Machine = &kubevirtv1.Machine{Type: DefaultMachineType}
	}
	for i := range d.Devices.Disks {
		setDiskDefaults(&d.Devices.Disks[i])
	}
	setNetworkDefaults(spec)
	if spec.Architecture == "" {
		spec.Architecture = runtime.GOARCH
	}
}

// setCPUDefaults fills the topology as upstream: an unset one takes its
// sockets from the CPU limit or request, and every unset count is 1.
func setCPUDefaults(spec *kubevirtv1.VirtualMachineInstanceSpec) {
	d := &spec.Domain
	if d.CPU == nil {
		d.CPU = &kubevirtv1.CPU{}
	}
	c := d.CPU
	if c.Sockets == 0 && c.Cores == 0 && c.Threads == 0 {
		if q, ok := d.Resources.Limits[corev1.ResourceCPU]; ok {
			c.Sockets = uint32(q.Value())
		} else if q, ok := d.Resources.Requests[corev1.ResourceCPU]; ok {
			c.Sockets = uint32(q.Value())
		}
	}
	for _, n := range []*uint32{&c.Sockets, &c.Cores, &c.Threads} {
		if *n == 0 {
			*n = 1
		}
	}
}

func setDiskDefaults(disk *kubevirtv1.Disk) {
	switch {
	case disk.CDRom != nil:
		if disk.CDRom.Bus == "" {
			disk.CDRom.Bus = kubevirtv1.DiskBusSATA
		}
	case disk.LUN != nil:
		if disk.LUN.Bus == "" {
			disk.LUN.Bus = kubevirtv1.DiskBusSCSI
		}
	case disk.Disk == nil:
		disk.Disk = &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}
	case disk.Disk.Bus == "":
		disk.Disk.Bus = kubevirtv1.DiskBusVirtio
	}
}

// setNetworkDefaults attaches the pod network with masquerade binding when
// the VMI names no network and does not opt out.
func setNetworkDefaults(spec *kubevirtv1.VirtualMachineInstanceSpec) {
	devs := &spec.Domain.Devices
	if devs.AutoattachPodInterface != nil && !*devs.AutoattachPodInterface {
		return
	}
	if len(devs.Interfaces) > 0 || len(spec.Networks) > 0 {
		return
	}
	devs.Interfaces = []kubevirtv1.Interface{{
		Name:                   defaultNetworkName,
		InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}},
	}}
	spec.Networks = []kubevirtv1.Network{{Name: defaultNetworkName, NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}
}

// AddVolumeDisks gives every volume without a disk one, as upstream's
// defaults do. SetVMIDefaults starts with it; virt-api's expand-spec
// calls it alone, before applying an instancetype.
func AddVolumeDisks(spec *kubevirtv1.VirtualMachineInstanceSpec) {
	have := map[string]bool{}
	for _, d := range spec.Domain.Devices.Disks {
		have[d.Name] = true
	}
	for _, v := range spec.Volumes {
		if !have[v.Name] {
			spec.Domain.Devices.Disks = append(spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: v.Name})
		}
	}
}
