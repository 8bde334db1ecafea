package commontemplates

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// TestGuestOS is the OS ID of virtflow's test guest, the ID its guest
// agent reports; it names the test guest's templates and DataSource.
const TestGuestOS = "virtflow-test-guest"

// The test guest's kernel and initramfs inside its container disk.
const (
	testGuestKernel = "/boot/vmlinuz"
	testGuestInitrd = "/boot/initramfs.img"
)

// testGuest is virtflow's own family: a busybox guest that boots in
// seconds under TCG. It carries upstream's labels and annotations so that
// the console lists it and the validator checks it like any other common
// template. Its disk is a 24 MiB ext2 image, hence the small sizes.
func testGuest(o Options) *family {
	return &family{
		os: TestGuestOS, osIDs: []string{TestGuestOS}, osName: "Virtflow Test Guest",
		displayName: "Virtflow Test Guest VM",
		description: "Template for the Virtflow test guest VM. A PVC with the test guest disk image must be available.",
		tags:        "hidden,kubevirt,virtualmachine,linux", icon: "linux",
		dataSource: TestGuestOS, namePrefix: TestGuestOS, nameRandom: 16,
		containerDisks: []string{o.TestGuestImage},
		workloads:      []string{Server}, flavors: []string{Tiny, Small},
		defaults: variant{Server, Small},
		memory:   map[string]string{Tiny: "256Mi", Small: "512Mi"},
		storage:  "64Mi", editable: linuxEditable,
		rules: []rule{minMemory(256 * mi)},
		spec:  testGuestSpec,
		// The guest has no ACPI daemon and ignores the power button, so
		// a stop waits out the whole grace period; keep it short.
		terminateWait: 2,
	}
}

// testGuestSpec boots the test guest as the platform's integration tests
// do: its kernel and initramfs from the container disk, the cloned disk
// as a virtio disk the initramfs mounts. The guest has no cloud-init and
// no network drivers, so it gets neither.
func testGuestSpec(f *family, v variant, o Options) kubevirtv1.VirtualMachineInstanceSpec {
	grace := f.terminateWait
	return kubevirtv1.VirtualMachineInstanceSpec{
		Architecture: Architecture,
		Domain: kubevirtv1.DomainSpec{
			CPU:    cpu(v.flavor, 1),
			Memory: memory(f, v.flavor),
			Firmware: &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{
				KernelArgs: "console=ttyS0",
				Container: &kubevirtv1.KernelBootContainer{
					Image: o.TestGuestImage, KernelPath: testGuestKernel, InitrdPath: testGuestInitrd,
				},
			}},
			Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{
				Name: rootDisk, DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}},
			}}},
		},
		TerminationGracePeriodSeconds: &grace,
		Volumes:                       []kubevirtv1.Volume{rootVolume()},
	}
}
