package virtadmission

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// ValidateVMSpec checks a VirtualMachine spec as upstream's VM admitter
// does once defaults are set: bindings discontinued since v1.3 first (and
// alone), then the template's metadata and spec, the DataVolume templates,
// the run strategy and what live updates need.
func ValidateVMSpec(spec *kubevirtv1.VirtualMachineSpec) []metav1.StatusCause {
	f := field.NewPath("spec")
	if spec.Template == nil {
		return one(causeOf(metav1.CauseTypeFieldValueRequired, f.Child("template"), "missing virtual machine template."))
	}
	if causes := validateDiscontinuedBindings(f, &spec.Template.Spec); len(causes) > 0 {
		return causes
	}
	causes := ValidateVMIMetadata(f.Child("template", "metadata"), &spec.Template.ObjectMeta)
	causes = append(causes, ValidateVMISpec(f.Child("template", "spec"), &spec.Template.Spec)...)
	causes = append(causes, validateDataVolumeTemplates(f, spec)...)
	causes = append(causes, validateRunStrategy(f, spec)...)
	return append(causes, validateLiveUpdate(f, &spec.Template.Spec)...)
}

func validateRunStrategy(f *field.Path, spec *kubevirtv1.VirtualMachineSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if spec.Running != nil && spec.RunStrategy != nil {
		causes = append(causes, cause(f.Child("running"), "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead"))
	}
	if spec.Running == nil && spec.RunStrategy == nil {
		causes = append(causes, cause(f.Child("running"), "RunStrategy must be specified"))
	}
	if spec.RunStrategy == nil {
		return causes
	}
	switch s := *spec.RunStrategy; s {
	case kubevirtv1.RunStrategyHalted, kubevirtv1.RunStrategyManual, kubevirtv1.RunStrategyAlways,
		kubevirtv1.RunStrategyRerunOnFailure, kubevirtv1.RunStrategyOnce:
	case kubevirtv1.RunStrategyWaitAsReceiver:
		if !gateEnabled("DecentralizedLiveMigration") {
			causes = append(causes, cause(f.Child("runStrategy"),
				"Invalid RunStrategy (%s), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource", s))
		}
	default:
		causes = append(causes, cause(f.Child("runStrategy"), "Invalid RunStrategy (%s)", s))
	}
	return causes
}

// Memory hotplug moves memory in blocks: 2Mi, or 1Gi with 1Gi hugepages,
// and needs a guest of at least 1Gi.
const (
	hotplugBlock       = 2 << 20
	hotplugBlock1GPage = 1 << 30
	hotplugMinGuest    = 1 << 30
)

// validateLiveUpdate applies under the LiveUpdate rollout strategy, the
// default: sockets within maxSockets, and a maxGuest that memory hotplug
// can work with.
func validateLiveUpdate(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	tmpl := f.Child("template", "spec", "domain")
	if c := spec.Domain.CPU; c != nil && c.Sockets != 0 && c.MaxSockets != 0 && c.Sockets > c.MaxSockets {
		causes = append(causes, cause(tmpl.Child("cpu", "sockets"), socketsAboveMaxMsg))
	}
	if m := spec.Domain.Memory; m != nil && m.MaxGuest != nil {
		if problem := memoryHotplugProblem(spec, m.MaxGuest); problem != "" {
			causes = append(causes, cause(tmpl.Child("memory", "guest"), "%s", problem))
		}
	}
	return causes
}

// memoryHotplugProblem says why the guest's memory cannot be hotplugged
// up to maxGuest, "" when it can.
func memoryHotplugProblem(spec *kubevirtv1.VirtualMachineInstanceSpec, maxGuest *resource.Quantity) string {
	d := spec.Domain
	switch {
	case d.CPU != nil && d.CPU.Realtime != nil:
		return "Memory hotplug is not compatible with realtime VMs"
	case d.CPU != nil && d.CPU.NUMA != nil && d.CPU.NUMA.GuestMappingPassthrough != nil:
		return "Memory hotplug is not compatible with guest mapping passthrough"
	case d.LaunchSecurity != nil:
		return "Memory hotplug is not compatible with encrypted VMs"
	case d.Memory == nil || d.Memory.Guest == nil:
		return "Guest memory must be configured when memory hotplug is enabled"
	}
	block := int64(hotplugBlock)
	if d.Memory.Hugepages != nil && d.Memory.Hugepages.PageSize == "1Gi" {
		block = hotplugBlock1GPage
	}
	guest := d.Memory.Guest
	switch {
	case guest.Cmp(*maxGuest) > 0:
		return "Guest memory is greater than the configured maxGuest memory"
	case guest.Value()%block != 0:
		return fmt.Sprintf("Guest memory must be %s aligned", resource.NewQuantity(block, resource.BinarySI))
	case maxGuest.Value()%block != 0:
		return fmt.Sprintf("MaxGuest must be %s aligned", resource.NewQuantity(block, resource.BinarySI))
	case spec.Architecture != "amd64":
		return "Memory hotplug is only available for x86_64 VMs"
	case guest.Value() < hotplugMinGuest:
		return "Memory hotplug is only available for VMs with at least 1Gi of guest memory"
	}
	return ""
}
