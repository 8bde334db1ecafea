package instancetype

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
)

// applyPreference fills what the VM left unset. Two fields cannot tell
// "unset" from false (ACPI, disableHotplug), so the preference always
// wins there, as upstream.
func applyPreference(p *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec, meta *metav1.ObjectMeta) {
	preferCPUFeatures(p, spec)
	preferDevices(p, spec)
	preferFeatures(p, spec)
	preferFirmware(p, spec)
	if m := p.Machine; m != nil && m.PreferredMachineType != "" {
		if spec.Domain.Machine == nil {
			spec.Domain.Machine = &kubevirtv1.Machine{}
		}
		if spec.Domain.Machine.Type == "" {
			spec.Domain.Machine.Type = m.PreferredMachineType
		}
	}
	preferClock(p, spec)
	if spec.Subdomain == "" && p.PreferredSubdomain != nil {
		spec.Subdomain = *p.PreferredSubdomain
	}
	if p.PreferredTerminationGracePeriodSeconds != nil && spec.TerminationGracePeriodSeconds == nil {
		v := *p.PreferredTerminationGracePeriodSeconds
		spec.TerminationGracePeriodSeconds = &v
	}
	if a := p.PreferredArchitecture; a != nil && *a != "" && spec.Architecture == "" {
		spec.Architecture = *a
	}
	if meta != nil && len(p.Annotations) > 0 {
		if meta.Annotations == nil {
			meta.Annotations = map[string]string{}
		}
		for _, k := range sortedKeys(p.Annotations) {
			if _, ok := meta.Annotations[k]; !ok {
				meta.Annotations[k] = p.Annotations[k]
			}
		}
	}
}

func preferCPUFeatures(p *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	if p.CPU == nil || len(p.CPU.PreferredCPUFeatures) == 0 {
		return
	}
	if spec.Domain.CPU == nil {
		spec.Domain.CPU = &kubevirtv1.CPU{}
	}
	have := map[string]bool{}
	for _, f := range spec.Domain.CPU.Features {
		have[f.Name] = true
	}
	for _, f := range p.CPU.PreferredCPUFeatures {
		if !have[f.Name] {
			spec.Domain.CPU.Features = append(spec.Domain.CPU.Features, f)
		}
	}
}

// PreferAutoattach applies only the autoattach preferences; the VM
// controller does this before defaulting the pod interface, as upstream.
func PreferAutoattach(p *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	if p == nil || p.Devices == nil {
		return
	}
	d, dev := p.Devices, &spec.Domain.Devices
	fill(d.PreferredAutoattachGraphicsDevice, &dev.AutoattachGraphicsDevice)
	fill(d.PreferredAutoattachMemBalloon, &dev.AutoattachMemBalloon)
	fill(d.PreferredAutoattachPodInterface, &dev.AutoattachPodInterface)
	fill(d.PreferredAutoattachSerialConsole, &dev.AutoattachSerialConsole)
	fill(d.PreferredAutoattachInputDevice, &dev.AutoattachInputDevice)
}

// fill copies a preferred value where the VM left the pointer unset.
func fill[T any](pref *T, vm **T) {
	if pref != nil && *vm == nil {
		v := *pref
		*vm = &v
	}
}

func preferDevices(p *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	if p.Devices == nil {
		return
	}
	d, dev := p.Devices, &spec.Domain.Devices
	fill(d.PreferredUseVirtioTransitional, &dev.UseVirtioTransitional)
	fill(d.PreferredBlockMultiQueue, &dev.BlockMultiQueue)
	fill(d.PreferredNetworkInterfaceMultiQueue, &dev.NetworkInterfaceMultiQueue)
	if d.PreferredDisableHotplug != nil {
		dev.DisableHotplug = *d.PreferredDisableHotplug
	}
	if d.PreferredSoundModel != "" && dev.Sound != nil && dev.Sound.Model == "" {
		dev.Sound.Model = d.PreferredSoundModel
	}
	if d.PreferredRng != nil && dev.Rng == nil {
		dev.Rng = d.PreferredRng.DeepCopy()
	}
	if d.PreferredTPM != nil && dev.TPM == nil {
		dev.TPM = d.PreferredTPM.DeepCopy()
	}
	PreferAutoattach(p, spec)
	for i := range dev.Disks {
		preferDisk(d, &dev.Disks[i])
	}
	preferInterfaces(d, spec)
	for i := range dev.Inputs {
		in := &dev.Inputs[i]
		if d.PreferredInputBus != "" && in.Bus == "" {
			in.Bus = d.PreferredInputBus
		}
		if d.PreferredInputType != "" && in.Type == "" {
			in.Type = d.PreferredInputType
		}
	}
	for i := range dev.PanicDevices {
		if pd := &dev.PanicDevices[i]; pd.Model == nil && d.PreferredPanicDeviceModel != nil {
			pd.Model = d.PreferredPanicDeviceModel
		}
	}
}

// preferDisk gives a disk without a target a disk target, then fills its
// bus and tuning from the preference.
func preferDisk(d *v1beta1.DevicePreferences, disk *kubevirtv1.Disk) {
	if disk.Disk == nil && disk.CDRom == nil && disk.LUN == nil {
		disk.Disk = &kubevirtv1.DiskTarget{}
	}
	switch {
	case disk.Disk != nil:
		if d.PreferredDiskBus != "" && disk.Disk.Bus == "" {
			disk.Disk.Bus = d.PreferredDiskBus
		}
		if d.PreferredDiskBlockSize != nil && disk.BlockSize == nil {
			disk.BlockSize = d.PreferredDiskBlockSize.DeepCopy()
		}
		if d.PreferredDiskCache != "" && disk.Cache == "" {
			disk.Cache = d.PreferredDiskCache
		}
		if d.PreferredDiskIO != "" && disk.IO == "" {
			disk.IO = d.PreferredDiskIO
		}
		if disk.Disk.Bus == kubevirtv1.DiskBusVirtio {
			fill(d.PreferredDiskDedicatedIoThread, &disk.DedicatedIOThread)
		}
	case disk.CDRom != nil:
		if d.PreferredCdromBus != "" && disk.CDRom.Bus == "" {
			disk.CDRom.Bus = d.PreferredCdromBus
		}
	case disk.LUN != nil:
		if d.PreferredLunBus != "" && disk.LUN.Bus == "" {
			disk.LUN.Bus = d.PreferredLunBus
		}
	}
}

func preferInterfaces(d *v1beta1.DevicePreferences, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	podNetwork := map[string]bool{}
	for _, n := range spec.Networks {
		podNetwork[n.Name] = n.Pod != nil
	}
	for i := range spec.Domain.Devices.Interfaces {
		iface := &spec.Domain.Devices.Interfaces[i]
		if d.PreferredInterfaceModel != "" && iface.Model == "" {
			iface.Model = d.PreferredInterfaceModel
		}
		unbound := iface.InterfaceBindingMethod == (kubevirtv1.InterfaceBindingMethod{}) && iface.Binding == nil
		if d.PreferredInterfaceMasquerade != nil && unbound && podNetwork[iface.Name] {
			iface.Masquerade = d.PreferredInterfaceMasquerade.DeepCopy()
		}
	}
}

func preferFeatures(p *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	f := p.Features
	if f == nil {
		return
	}
	if spec.Domain.Features == nil {
		spec.Domain.Features = &kubevirtv1.Features{}
	}
	vf := spec.Domain.Features
	if f.PreferredAcpi != nil {
		vf.ACPI = *f.PreferredAcpi.DeepCopy()
	}
	if f.PreferredApic != nil && vf.APIC == nil {
		vf.APIC = f.PreferredApic.DeepCopy()
	}
	if f.PreferredHyperv != nil && vf.Hyperv == nil {
		vf.Hyperv = f.PreferredHyperv.DeepCopy()
	}
	if f.PreferredKvm != nil && vf.KVM == nil {
		vf.KVM = f.PreferredKvm.DeepCopy()
	}
	if f.PreferredPvspinlock != nil && vf.Pvspinlock == nil {
		vf.Pvspinlock = f.PreferredPvspinlock.DeepCopy()
	}
	if f.PreferredSmm != nil && vf.SMM == nil {
		vf.SMM = f.PreferredSmm.DeepCopy()
	}
}

func preferFirmware(p *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	fw := p.Firmware
	if fw == nil {
		return
	}
	if spec.Domain.Firmware == nil {
		spec.Domain.Firmware = &kubevirtv1.Firmware{}
	}
	if spec.Domain.Firmware.Bootloader == nil {
		spec.Domain.Firmware.Bootloader = &kubevirtv1.Bootloader{}
	}
	b := spec.Domain.Firmware.Bootloader
	if fw.PreferredUseBios != nil && *fw.PreferredUseBios && b.BIOS == nil && b.EFI == nil {
		b.BIOS = &kubevirtv1.BIOS{}
	}
	if b.BIOS != nil {
		fill(fw.PreferredUseBiosSerial, &b.BIOS.UseSerial)
	}
	if b.EFI == nil && b.BIOS == nil && fw.PreferredEfi != nil {
		b.EFI = fw.PreferredEfi.DeepCopy()
		return
	}
	if fw.DeprecatedPreferredUseEfi != nil && *fw.DeprecatedPreferredUseEfi && b.EFI == nil && b.BIOS == nil {
		b.EFI = &kubevirtv1.EFI{}
	}
	if b.EFI != nil {
		fill(fw.DeprecatedPreferredUseSecureBoot, &b.EFI.SecureBoot)
	}
}

func preferClock(p *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) {
	c := p.Clock
	if c == nil {
		return
	}
	if spec.Domain.Clock == nil {
		spec.Domain.Clock = &kubevirtv1.Clock{}
	}
	vc := spec.Domain.Clock
	// Only a whole offset, never half of one.
	if c.PreferredClockOffset != nil && vc.UTC == nil && vc.Timezone == nil {
		vc.ClockOffset = *c.PreferredClockOffset.DeepCopy()
	}
	if c.PreferredTimer != nil && vc.Timer == nil {
		vc.Timer = c.PreferredTimer.DeepCopy()
	}
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func copyMap(m map[string]string) map[string]string { return maps.Clone(m) }
