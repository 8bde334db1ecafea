package commontemplates

import (
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// cloudInitDisk is the disk and volume name of the cloud-init seed.
const cloudInitDisk = "cloudinitdisk"

// linuxSpec is the VMI spec of upstream's Linux meta-templates: virtio
// everywhere, a random number generator, cloud-init setting the cloud
// user's generated password.
func linuxSpec(f *family, v variant, _ Options) kubevirtv1.VirtualMachineInstanceSpec {
	grace := f.terminateWait
	spec := kubevirtv1.VirtualMachineInstanceSpec{
		Architecture: Architecture,
		Domain: kubevirtv1.DomainSpec{
			CPU:     cpu(v.flavor, 1),
			Memory:  memory(f, v.flavor),
			Devices: linuxDevices(f, v),
		},
		TerminationGracePeriodSeconds: &grace,
		Networks:                      podNetwork(),
		Volumes:                       []kubevirtv1.Volume{rootVolume(), cloudInitVolume(f.cloudUser)},
	}
	if v.workload == HighPerformance {
		dedicate(&spec.Domain)
	}
	if f.efi {
		spec.Domain.Features = &kubevirtv1.Features{SMM: &kubevirtv1.FeatureState{Enabled: ptr.To(true)}}
		spec.Domain.Firmware = &kubevirtv1.Firmware{Bootloader: &kubevirtv1.Bootloader{EFI: &kubevirtv1.EFI{}}}
	}
	return spec
}

// dedicate gives a high-performance VM pinned CPUs, its emulator thread a
// CPU of its own and its root disk a dedicated I/O thread.
func dedicate(d *kubevirtv1.DomainSpec) {
	d.CPU.DedicatedCPUPlacement = true
	d.CPU.IsolateEmulatorThread = true
	d.IOThreadsPolicy = ptr.To(kubevirtv1.IOThreadsPolicyShared)
	d.Devices.Disks[0].DedicatedIOThread = ptr.To(true)
}

// linuxDevices are the root and cloud-init disks, one virtio NIC (with a
// queue per vCPU once there are several), an RNG, and a tablet on desktops.
func linuxDevices(f *family, v variant) kubevirtv1.Devices {
	virtio := func(name string) kubevirtv1.Disk {
		return kubevirtv1.Disk{Name: name, DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}}}
	}
	d := kubevirtv1.Devices{
		Disks:      []kubevirtv1.Disk{virtio(rootDisk), virtio(cloudInitDisk)},
		Interfaces: []kubevirtv1.Interface{masquerade("virtio")},
		Rng:        &kubevirtv1.Rng{},
	}
	if sockets(v.flavor) > 1 {
		d.NetworkInterfaceMultiQueue = ptr.To(true)
	}
	if v.workload == Desktop || f.alwaysTablet {
		d.Inputs = []kubevirtv1.Input{{Type: kubevirtv1.InputTypeTablet, Bus: kubevirtv1.InputBusVirtio, Name: "tablet"}}
	}
	if f.legacyVirtio {
		// CentOS 6 predates virtio 1.0 and boots only from an explicit
		// boot order.
		d.UseVirtioTransitional = ptr.To(true)
		d.Disks[0].BootOrder = ptr.To(uint(1))
	}
	return d
}

// cloudInitVolume seeds the cloud user's password from the generated
// CLOUD_USER_PASSWORD parameter and keeps it from expiring.
func cloudInitVolume(user string) kubevirtv1.Volume {
	userData := "#cloud-config\n" +
		"user: " + user + "\n" +
		"password: " + cloudUserPasswordRef + "\n" +
		"chpasswd: { expire: False }"
	return kubevirtv1.Volume{Name: cloudInitDisk, VolumeSource: kubevirtv1.VolumeSource{
		CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: userData},
	}}
}
