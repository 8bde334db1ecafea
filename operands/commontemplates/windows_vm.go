package commontemplates

import (
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// windowsSpec is the VMI spec of upstream's Windows meta-templates:
// Hyper-V enlightenments and clock, Secure Boot, and emulated devices
// Windows drives without virtio drivers, except on the high-performance
// workload, which assumes the drivers are installed.
func windowsSpec(f *family, v variant, _ Options) kubevirtv1.VirtualMachineInstanceSpec {
	grace := f.terminateWait
	spec := kubevirtv1.VirtualMachineInstanceSpec{
		Architecture: Architecture,
		Domain: kubevirtv1.DomainSpec{
			Clock:    windowsClock(),
			CPU:      cpu(v.flavor, f.cores),
			Memory:   memory(f, v.flavor),
			Features: windowsFeatures(),
			Firmware: &kubevirtv1.Firmware{Bootloader: &kubevirtv1.Bootloader{EFI: &kubevirtv1.EFI{SecureBoot: ptr.To(true)}}},
			Devices:  windowsDevices(v),
		},
		TerminationGracePeriodSeconds: &grace,
		Networks:                      podNetwork(),
		Volumes:                       []kubevirtv1.Volume{rootVolume()},
	}
	if v.workload == HighPerformance {
		spec.Domain.CPU.DedicatedCPUPlacement = true
		spec.Domain.CPU.IsolateEmulatorThread = true
	}
	if f.tpm {
		// BitLocker and Windows 11 need a TPM whose state, like the EFI
		// variables it seals against, survives restarts.
		spec.Domain.Devices.TPM = &kubevirtv1.TPMDevice{Persistent: ptr.To(true)}
		spec.Domain.Firmware.Bootloader.EFI.Persistent = ptr.To(true)
	}
	return spec
}

// windowsClock keeps the guest on UTC with the timer policies Windows
// needs to keep time under load, and the Hyper-V clock.
func windowsClock() *kubevirtv1.Clock {
	return &kubevirtv1.Clock{
		ClockOffset: kubevirtv1.ClockOffset{UTC: &kubevirtv1.ClockOffsetUTC{}},
		Timer: &kubevirtv1.Timer{
			HPET:   &kubevirtv1.HPETTimer{Enabled: ptr.To(false)},
			PIT:    &kubevirtv1.PITTimer{TickPolicy: kubevirtv1.PITTickPolicyDelay},
			RTC:    &kubevirtv1.RTCTimer{TickPolicy: kubevirtv1.RTCTickPolicyCatchup},
			Hyperv: &kubevirtv1.HypervTimer{},
		},
	}
}

// windowsFeatures are ACPI, APIC, SMM (for Secure Boot) and the Hyper-V
// enlightenments upstream enables.
func windowsFeatures() *kubevirtv1.Features {
	on := func() *kubevirtv1.FeatureState { return &kubevirtv1.FeatureState{} }
	return &kubevirtv1.Features{
		ACPI: kubevirtv1.FeatureState{},
		APIC: &kubevirtv1.FeatureAPIC{},
		SMM:  on(),
		Hyperv: &kubevirtv1.FeatureHyperv{
			Relaxed: on(), VAPIC: on(), VPIndex: on(),
			Spinlocks:   &kubevirtv1.FeatureSpinlocks{Retries: ptr.To(uint32(8191))},
			SyNIC:       on(),
			SyNICTimer:  &kubevirtv1.SyNICTimer{Direct: on()},
			TLBFlush:    &kubevirtv1.TLBFlush{},
			Frequencies: on(), Reenlightenment: on(), IPI: on(), Runtime: on(), Reset: on(),
		},
	}
}

// windowsDevices: SATA disk and e1000e NIC work with Windows' inbox
// drivers; high performance switches both to virtio and spreads the NIC's
// queues over the vCPUs. A USB tablet keeps the console pointer aligned.
func windowsDevices(v variant) kubevirtv1.Devices {
	bus, nic := kubevirtv1.DiskBusSATA, "e1000e"
	if v.workload == HighPerformance {
		bus, nic = kubevirtv1.DiskBusVirtio, "virtio"
	}
	d := kubevirtv1.Devices{
		Disks:      []kubevirtv1.Disk{{Name: rootDisk, DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: bus}}}},
		Interfaces: []kubevirtv1.Interface{masquerade(nic)},
		Inputs:     []kubevirtv1.Input{{Type: kubevirtv1.InputTypeTablet, Bus: kubevirtv1.InputBusUSB, Name: "tablet"}},
	}
	if v.workload == HighPerformance && sockets(v.flavor) > 1 {
		d.NetworkInterfaceMultiQueue = ptr.To(true)
	}
	return d
}
