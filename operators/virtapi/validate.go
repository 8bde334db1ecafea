// Package virtapi holds virt-api's admission webhooks for VirtualMachines
// and VirtualMachineInstances: defaults (mutating) and upstream's validation
// rules and messages (validating).
package virtapi

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func cause(f *field.Path, format string, args ...any) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: f.String(), Message: fmt.Sprintf(format, args...)}
}

// ValidateVMISpec checks a VMI spec (or a VM template's) at path f.
func ValidateVMISpec(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	causes = append(causes, validateNames(f, spec)...)
	causes = append(causes, validateDisks(f, spec)...)
	causes = append(causes, validateInterfaces(f, spec)...)
	causes = append(causes, validateMemory(f, spec)...)
	causes = append(causes, validateCPU(f, spec)...)
	return causes
}

func validateNames(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	disks := f.Child("domain", "devices", "disks")
	seen := map[string]int{}
	for i, d := range spec.Domain.Devices.Disks {
		if j, ok := seen[d.Name]; ok {
			causes = append(causes, cause(disks.Index(i).Child("name"), "%s and %s must not have the same Name.",
				disks.Index(i).Child("name").String(), disks.Index(j).Child("name").String()))
		}
		seen[d.Name] = i
	}
	vols := f.Child("volumes")
	seenVol := map[string]int{}
	for i, v := range spec.Volumes {
		if j, ok := seenVol[v.Name]; ok {
			causes = append(causes, cause(vols.Index(i).Child("name"), "%s and %s must not have the same Name.",
				vols.Index(i).Child("name").String(), vols.Index(j).Child("name").String()))
		}
		seenVol[v.Name] = i
	}
	return causes
}

func validateDisks(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
	}
	disks := f.Child("domain", "devices", "disks")
	boot := map[uint]int{}
	for i, d := range spec.Domain.Devices.Disks {
		p := disks.Index(i)
		if !volumes[d.Name] {
			causes = append(causes, cause(p.Child("name"), "%s '%s' not found.", p.Child("name").String(), d.Name))
		}
		if n := deviceTypes(d); n > 1 {
			causes = append(causes, cause(p, "%s can only have a single target type defined", p.String()))
		}
		causes = append(causes, validateBus(p, d)...)
		if d.BootOrder != nil {
			if *d.BootOrder < 1 {
				causes = append(causes, cause(p.Child("bootOrder"), "%s must have a boot order > 0, if supplied", p.String()))
			} else if j, ok := boot[*d.BootOrder]; ok {
				causes = append(causes, cause(p.Child("bootOrder"), "Boot order for %s already set for a different device.", disks.Index(j).Child("bootOrder").String()))
			}
			boot[*d.BootOrder] = i
		}
	}
	return causes
}

func deviceTypes(d kubevirtv1.Disk) int {
	n := 0
	for _, set := range []bool{d.Disk != nil, d.CDRom != nil, d.LUN != nil} {
		if set {
			n++
		}
	}
	return n
}

func validateBus(p *field.Path, d kubevirtv1.Disk) []metav1.StatusCause {
	var bus kubevirtv1.DiskBus
	var target *field.Path
	switch {
	case d.Disk != nil:
		bus, target = d.Disk.Bus, p.Child("disk", "bus")
	case d.CDRom != nil:
		bus, target = d.CDRom.Bus, p.Child("cdrom", "bus")
		if bus == kubevirtv1.DiskBusVirtio {
			return []metav1.StatusCause{cause(target, "Bus type virtio is invalid for CD-ROM device")}
		}
	case d.LUN != nil:
		bus, target = d.LUN.Bus, p.Child("lun", "bus")
	}
	switch bus {
	case "", kubevirtv1.DiskBusVirtio, kubevirtv1.DiskBusSATA, kubevirtv1.DiskBusSCSI, kubevirtv1.DiskBusUSB:
		return nil
	case "ide":
		return []metav1.StatusCause{cause(target, "IDE bus is not supported")}
	}
	return []metav1.StatusCause{cause(target, "%s is set with an unrecognized bus %s, must be one of: [virtio sata scsi usb]", target.String(), bus)}
}

func validateInterfaces(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	networks := map[string]bool{}
	for _, n := range spec.Networks {
		networks[n.Name] = true
	}
	ifaces := f.Child("domain", "devices", "interfaces")
	for i, iface := range spec.Domain.Devices.Interfaces {
		if !networks[iface.Name] {
			causes = append(causes, cause(ifaces.Index(i).Child("name"), "%s '%s' not found.", ifaces.Index(i).Child("name").String(), iface.Name))
		}
	}
	return causes
}

// ValidateVMIMandatory checks what a VMI itself must have, but a VM's
// template need not (an instancetype may bring it): some memory.
func ValidateVMIMandatory(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	d := spec.Domain
	if d.Resources.Requests.Memory().Value() != 0 {
		return nil
	}
	if d.Memory == nil || (d.Memory.Guest == nil && d.Memory.Hugepages == nil) {
		return []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Message: fmt.Sprintf(
			"no memory requested, at least one of '%s', '%s' or '%s' must be set",
			f.Child("domain", "memory", "guest").String(), f.Child("domain", "memory", "hugepages", "pageSize").String(),
			f.Child("domain", "resources", "requests", "memory").String())}}
	}
	return nil
}

func validateMemory(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	d := spec.Domain
	req, lim := d.Resources.Requests.Memory(), d.Resources.Limits.Memory()
	hasGuest := d.Memory != nil && d.Memory.Guest != nil
	var causes []metav1.StatusCause
	if !req.IsZero() && !lim.IsZero() && req.Cmp(*lim) > 0 {
		causes = append(causes, cause(f.Child("domain", "resources", "requests", "memory"),
			"%s '%s' is greater than %s '%s'", f.Child("domain", "resources", "requests", "memory").String(), req.String(),
			f.Child("domain", "resources", "limits", "memory").String(), lim.String()))
	}
	if hasGuest && !lim.IsZero() && d.Memory.Guest.Cmp(*lim) > 0 {
		causes = append(causes, cause(f.Child("domain", "memory", "guest"),
			"%s '%s' must be equal to or less than the memory limit %s '%s'", f.Child("domain", "memory", "guest").String(),
			d.Memory.Guest.String(), f.Child("domain", "resources", "limits", "memory").String(), lim.String()))
	}
	if hasGuest && d.Memory.Guest.Value() < 1<<20 {
		causes = append(causes, cause(f.Child("domain", "memory", "guest"), "%s '%s' must be greater than or equal to 1Mi.",
			f.Child("domain", "memory", "guest").String(), d.Memory.Guest.String()))
	}
	return causes
}

func validateCPU(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	c := spec.Domain.CPU
	if c == nil || c.MaxSockets == 0 || c.Sockets <= c.MaxSockets {
		return nil
	}
	p := f.Child("domain", "cpu")
	return []metav1.StatusCause{cause(p.Child("sockets"), "%s '%d' must be less than or equal to %s '%d'",
		p.Child("sockets").String(), c.Sockets, p.Child("maxSockets").String(), c.MaxSockets)}
}
