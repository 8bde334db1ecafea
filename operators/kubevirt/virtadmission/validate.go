package virtadmission

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
// user of upstream sees them. Upstream's guest-memory-above-limit check is
// absent: it is skipped under the LiveUpdate rollout strategy, which is the
// default. Affinity and topology spread constraints are left to the
// kubelet's pod validation.
var specChecks = []specCheck{
	validateHostname, validateSubdomain, validateMemoryRequests, validateMemoryLimits, validateHugepages,
	validateMachineType, validateFirmwareACPI, validateCPURequest, validateCPULimit, validateCPURequestLimit,
	validateDedicatedCPUs, validateNUMA, validateEmulatorThread, validateCPUFeatures, validateCPUHotplug,
	validateStartStrategy, validateRealtime, validateNetworks, validateBootOrder, validateInputs,
	validateIOThreads, validateProbes, validateDomain, validateVolumes, validateContainerDiskPaths,
	validateUtilityVolumes, validateAccessCredentials, validateDNS, validateEvictionStrategy, validateRamFB,
	validateSound, validateLaunchSecurity, validateVSOCK, validatePersistentReservation, validateDownwardMetricsDevice,
	validateFilesystems, validateVideo, validatePanicDevices, validateRebootPolicy, validateReservedOverhead,
	validateDRA, validateNotYet,
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

// ValidateVMIMandatory checks what a VMI itself must satisfy but a VM's
// template need not (an instancetype may bring it): some memory, the
// Hyper-V feature dependencies and the settings its architecture supports.
// Upstream's check that every volume has a disk is not here: upstream's
// defaults add a disk for every volume without one, so it never fires.
func ValidateVMIMandatory(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	causes := validateMandatoryMemory(f, spec)
	causes = append(causes, validateHyperv(f.Child("domain", "features", "hyperv"), spec)...)
	return append(causes, validateArchitecture(f, spec)...)
}

// ValidateVMICreate checks a VMI being created in upstream's order: the
// network checks virt-api registers ahead of the spec validation (so their
// causes come twice, as upstream's do), the spec, the mandatory fields, the
// metadata, then Hyper-V and architecture. Unlike upstream, reserved labels
// are refused from KubeVirt's own service accounts too.
func ValidateVMICreate(vmi *kubevirtv1.VirtualMachineInstance) []metav1.StatusCause {
	f := field.NewPath("spec")
	causes := validateDiscontinuedBindings(f, &vmi.Spec)
	causes = append(causes, validateNetworks(f, &vmi.Spec)...)
	causes = append(causes, ValidateVMISpec(f, &vmi.Spec)...)
	causes = append(causes, validateMandatoryMemory(f, &vmi.Spec)...)
	causes = append(causes, ValidateVMIMetadata(field.NewPath("metadata"), &vmi.ObjectMeta)...)
	causes = append(causes, validateHyperv(f.Child("domain", "features", "hyperv"), &vmi.Spec)...)
	return append(causes, validateArchitecture(f, &vmi.Spec)...)
}

func validateMandatoryMemory(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
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
