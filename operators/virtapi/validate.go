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

// Message patterns upstream shares between several checks.
const (
	notFoundFmt       = "%s '%s' not found."
	mustBePositiveFmt = "%s '%s': must be greater than or equal to 0."
	requiredFieldFmt  = "%s is a required field"
)

func causeOf(t metav1.CauseType, f *field.Path, format string, args ...any) metav1.StatusCause {
	return metav1.StatusCause{Type: t, Field: f.String(), Message: fmt.Sprintf(format, args...)}
}

// cause is the common case: an invalid value.
func cause(f *field.Path, format string, args ...any) metav1.StatusCause {
	return causeOf(metav1.CauseTypeFieldValueInvalid, f, format, args...)
}

func one(c metav1.StatusCause) []metav1.StatusCause { return []metav1.StatusCause{c} }

type specCheck func(*field.Path, *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause

// specChecks run in upstream's order, so causes come back in the order a
// user of upstream sees them.
var specChecks = []specCheck{
	validateMemory, validateFirmwareACPI, validateCPU, validateInterfaces, validateBootOrder, validateDomain,
	validateVolumes, validateContainerDiskPaths,
}

// ValidateVMISpec checks a VMI spec (or a VM template's) at path f, as
// upstream's ValidateVirtualMachineInstanceSpec: every cause, in its order.
func ValidateVMISpec(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for _, check := range specChecks {
		causes = append(causes, check(f, spec)...)
	}
	return causes
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
