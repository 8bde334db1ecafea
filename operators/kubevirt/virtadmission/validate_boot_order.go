package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// validateBootOrder matches disks to volumes (what a LUN or the downward
// metrics may be backed by included) and wants boot orders unique across
// disks and interfaces.
func validateBootOrder(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	disks := f.Child("domain", "devices", "disks")
	used := map[uint]bool{}
	var causes []metav1.StatusCause
	for i, d := range spec.Domain.Devices.Disks {
		causes = append(causes, validateDiskVolume(disks.Index(i), d, volumeNamed(spec.Volumes, d.Name))...)
		if d.BootOrder != nil {
			if used[*d.BootOrder] {
				causes = append(causes, cause(disks.Index(i).Child("bootOrder"), "Boot order for %s already set for a different device.", disks.Index(i).Child("bootOrder")))
			}
			used[*d.BootOrder] = true
		}
	}
	return append(causes, validateInterfaceBootOrder(f, spec, used)...)
}

// validateDiskVolume checks disk d at p against its volume v (nil when
// there is none). The not-found message spells "Name" capitalised, as
// upstream's does.
func validateDiskVolume(p *field.Path, d kubevirtv1.Disk, v *kubevirtv1.Volume) []metav1.StatusCause {
	var causes []metav1.StatusCause
	switch {
	case v == nil && d.CDRom == nil:
		causes = append(causes, cause(p.Child("name"), notFoundFmt, p.Child("Name"), d.Name))
	case v == nil && !gateEnabled(gateDeclarativeHotplug):
		causes = append(causes, cause(p.Child("name"), "%s feature gate not enabled, cannot define an empty CD-ROM disk", gateDeclarativeHotplug))
	}
	if v == nil {
		return causes
	}
	if d.LUN != nil && v.PersistentVolumeClaim == nil && v.DataVolume == nil {
		causes = append(causes, cause(p.Child("lun"), "%s can only be mapped to a DataVolume or PersistentVolumeClaim volume.", p.Child("lun")))
	}
	if v.DownwardMetrics != nil {
		switch {
		case d.Disk == nil:
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, p.Child("disk"),
				"DownwardMetrics volume must be mapped to a disk, but disk is not set on %v.", p.Child("disk")))
		case d.Disk.Bus != kubevirtv1.DiskBusVirtio && d.Disk.Bus != "":
			causes = append(causes, cause(p.Child("disk", "bus"),
				"DownwardMetrics volume must be mapped to virtio bus, but %v is set to %v", p.Child("disk", "bus"), d.Disk.Bus))
		}
	}
	return causes
}

// validateInterfaceBootOrder keeps upstream's message for an order below
// one, which names spec[i] rather than the interface.
func validateInterfaceBootOrder(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec, used map[uint]bool) []metav1.StatusCause {
	ifaces := f.Child("domain", "devices", "interfaces")
	var causes []metav1.StatusCause
	for i, iface := range spec.Domain.Devices.Interfaces {
		if iface.BootOrder == nil {
			continue
		}
		order := *iface.BootOrder
		if order < 1 {
			causes = append(causes, cause(f.Index(i).Child("bootOrder"), "%s must have a boot order > 0, if supplied", f.Index(i)))
			continue
		}
		if used[order] {
			causes = append(causes, cause(ifaces.Index(i).Child("bootOrder"), "Boot order for %s already set for a different device.", ifaces.Index(i).Child("bootOrder")))
		}
		used[order] = true
	}
	return causes
}

func validateInputs(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, in := range spec.Domain.Devices.Inputs {
		p := f.Child("domain", "devices", "inputs").Index(i)
		if in.Bus != kubevirtv1.InputBusVirtio && in.Bus != kubevirtv1.InputBusUSB && in.Bus != "" {
			causes = append(causes, cause(p.Child("bus"), "Input device can have only virtio or usb bus."))
		}
		if in.Type != kubevirtv1.InputTypeTablet {
			causes = append(causes, cause(p.Child("type"), "Input device can have only tablet type."))
		}
	}
	return causes
}

func validateIOThreads(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	d := spec.Domain
	if d.IOThreadsPolicy == nil {
		return nil
	}
	var causes []metav1.StatusCause
	switch *d.IOThreadsPolicy {
	case kubevirtv1.IOThreadsPolicyShared, kubevirtv1.IOThreadsPolicyAuto, kubevirtv1.IOThreadsPolicySupplementalPool:
	default:
		causes = append(causes, cause(f.Child("domain", "ioThreadsPolicy"), "Invalid IOThreadsPolicy (%s)", *d.IOThreadsPolicy))
	}
	if *d.IOThreadsPolicy == kubevirtv1.IOThreadsPolicySupplementalPool &&
		(d.IOThreads == nil || d.IOThreads.SupplementalPoolThreadCount == nil || *d.IOThreads.SupplementalPoolThreadCount < 1) {
		causes = append(causes, cause(f.Child("domain", "ioThreads", "count"), "the number of iothreads needs to be set and positive for the dedicated policy"))
	}
	return causes
}
