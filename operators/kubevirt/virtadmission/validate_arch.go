package virtadmission

import (
	"path/filepath"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// emulatedMachines are the machine type patterns each architecture allows
// by default; any other architecture gets amd64's.
var emulatedMachines = map[string][]string{
	"amd64": {"q35*", "pc-q35*"},
	"arm64": {"virt*"},
	"s390x": {"s390-ccw-virtio*"},
}

func validateMachineType(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	m := spec.Domain.Machine
	if m == nil || m.Type == "" {
		return nil
	}
	allowed, ok := emulatedMachines[spec.Architecture]
	if !ok {
		allowed = emulatedMachines["amd64"]
	}
	for _, pattern := range allowed {
		if match, _ := filepath.Match(pattern, m.Type); match {
			return nil
		}
	}
	p := f.Child("domain", "machine", "type")
	return one(cause(p, "%s is not supported: %s (allowed values: %v)", p, m.Type, allowed))
}

// validateArchitecture refuses devices and settings the VMI's architecture
// does not have.
func validateArchitecture(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	switch spec.Architecture {
	case "amd64":
		return append(validateWatchdog(f, spec, "amd64 only supports I6300ESB watchdog device", true),
			validateVideoType(f, spec, "amd64", "vga", "cirrus", "virtio", "ramfb", "bochs")...)
	case "s390x":
		return append(validateWatchdog(f, spec, "s390x only supports Diag288 watchdog device", false),
			validateVideoType(f, spec, "s390x", "virtio")...)
	case "arm64":
		return validateArm64(f, spec)
	}
	return one(cause(f.Child("architecture"), "unsupported architecture: %s", spec.Architecture))
}

// validateWatchdog wants the architecture's one watchdog model: i6300esb
// when i6300esb is true, diag288 otherwise.
func validateWatchdog(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec, msg string, i6300esb bool) []metav1.StatusCause {
	w := spec.Domain.Devices.Watchdog
	if w == nil {
		return nil
	}
	ok := w.I6300ESB != nil && w.Diag288 == nil
	if !i6300esb {
		ok = w.Diag288 != nil && w.I6300ESB == nil
	}
	if ok {
		return nil
	}
	return one(causeOf(metav1.CauseTypeFieldValueNotSupported, f.Child("domain", "devices", "watchdog"), "%s", msg))
}

func validateVideoType(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec, arch string, valid ...string) []metav1.StatusCause {
	v := spec.Domain.Devices.Video
	if v == nil || slices.Contains(valid, v.Type) {
		return nil
	}
	return one(causeOf(metav1.CauseTypeFieldValueNotSupported, f.Child("domain", "devices", "video", "type"),
		"video model '%s' is not supported on %s architecture", v.Type, arch))
}

func validateArm64(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	d := spec.Domain
	notSupported := func(p *field.Path, format string, args ...any) metav1.StatusCause {
		return causeOf(metav1.CauseTypeFieldValueNotSupported, p, format, args...)
	}
	var causes []metav1.StatusCause
	if d.Firmware != nil && d.Firmware.Bootloader != nil && d.Firmware.Bootloader.BIOS != nil {
		causes = append(causes, notSupported(f.Child("domain", "firmware", "bootloader", "bios"), "Arm64 does not support bios boot, please change to uefi boot"))
	}
	if d.CPU != nil && d.CPU.Model != "" && d.CPU.Model != kubevirtv1.CPUModeHostPassthrough {
		causes = append(causes, notSupported(f.Child("domain", "cpu", "model"), "currently, %v is the only model supported on Arm64", kubevirtv1.CPUModeHostPassthrough))
	}
	armBus := func(b kubevirtv1.DiskBus) bool {
		return b == "" || b == kubevirtv1.DiskBusVirtio || b == kubevirtv1.DiskBusSCSI
	}
	for i, disk := range d.Devices.Disks {
		p := f.Child("domain", "devices", "disks").Index(i)
		for _, t := range []struct {
			set  bool
			bus  kubevirtv1.DiskBus
			kind string
		}{{disk.Disk != nil, busOf(disk.Disk), "disk"}, {disk.CDRom != nil, cdromBus(disk.CDRom), "cdrom"}, {disk.LUN != nil, lunBus(disk.LUN), "lun"}} {
			if t.set && !armBus(t.bus) {
				causes = append(causes, notSupported(p.Child(t.kind, "bus"), "Arm64 not support this disk bus type, please use virtio or scsi"))
			}
		}
	}
	if d.Devices.Watchdog != nil {
		causes = append(causes, notSupported(f.Child("domain", "devices", "watchdog"), "Arm64 not support Watchdog device"))
	}
	if d.Devices.Sound != nil {
		causes = append(causes, notSupported(f.Child("domain", "devices", "sound"), "Arm64 not support sound device"))
	}
	return append(causes, validateVideoType(f, spec, "arm64", "virtio", "ramfb")...)
}

func busOf(t *kubevirtv1.DiskTarget) kubevirtv1.DiskBus {
	if t == nil {
		return ""
	}
	return t.Bus
}

func cdromBus(t *kubevirtv1.CDRomTarget) kubevirtv1.DiskBus {
	if t == nil {
		return ""
	}
	return t.Bus
}

func lunBus(t *kubevirtv1.LunTarget) kubevirtv1.DiskBus {
	if t == nil {
		return ""
	}
	return t.Bus
}
