package virtadmission

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// VMIPresetValidatePath is where virt-api validates
// VirtualMachineInstancePresets, as upstream names it.
const VMIPresetValidatePath = "/vmipreset-validate"

const vmiPresetResource = "virtualmachineinstancepresets"

// VMIPresetValidator rejects VirtualMachineInstancePresets whose domain
// would make the VMIs they match invalid in the parts upstream checks.
type VMIPresetValidator struct{}

// Handle validates CREATE and UPDATE alike, as upstream.
func (v *VMIPresetValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	preset := &kubevirtv1.VirtualMachineInstancePreset{}
	if resp := decodeKubevirtKind(req, vmiPresetResource, preset); resp != nil {
		return *resp
	}
	return deny(ValidateVMIPresetSpec(field.NewPath("spec"), &preset.Spec))
}

// ValidateVMIPresetSpec checks a preset spec at path f as upstream's: a
// domain is required, and its disks and firmware (bootloader, kernel
// boot) must be valid. The rest is checked on each VMI it is applied to.
func ValidateVMIPresetSpec(f *field.Path, spec *kubevirtv1.VirtualMachineInstancePresetSpec) []metav1.StatusCause {
	d := f.Child("domain")
	if spec.Domain == nil {
		return one(causeOf(metav1.CauseTypeFieldValueRequired, d, "missing domain."))
	}
	causes := validateDisks(d.Child("devices", "disks"), spec.Domain.Devices.Disks)
	return append(causes, validatePresetFirmware(d.Child("firmware"), spec.Domain.Firmware)...)
}

func validatePresetFirmware(p *field.Path, fw *kubevirtv1.Firmware) []metav1.StatusCause {
	if fw == nil {
		return nil
	}
	var causes []metav1.StatusCause
	if bl := fw.Bootloader; bl != nil && bl.EFI != nil && bl.BIOS != nil {
		bp := p.Child("bootloader")
		causes = append(causes, cause(bp, "%s has both EFI and BIOS configured, but they are mutually exclusive.", bp))
	}
	return append(causes, validateKernelBoot(p.Child("kernelBoot"), fw.KernelBoot)...)
}

// vmiPresetRules are upstream's: CREATE and UPDATE in every version it serves.
func vmiPresetRules() []admissionregistrationv1.RuleWithOperations {
	return kubevirtKindRules(vmiPresetResource)
}
