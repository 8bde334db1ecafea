package virtadmission

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// VMIRSValidatePath is where virt-api validates
// VirtualMachineInstanceReplicaSets, as upstream names it.
const VMIRSValidatePath = "/virtualmachinereplicaset-validate"

const vmirsResource = "virtualmachineinstancereplicasets"

// VMIRSValidator rejects VirtualMachineInstanceReplicaSets whose template
// could not make a valid VMI or whose selector would not select the VMIs
// it makes.
type VMIRSValidator struct{}

// Handle validates CREATE and UPDATE alike: upstream has no update-only
// check, so the selector stays mutable. The template is checked as
// written, without defaults, as upstream does; each VMI made from it is
// defaulted and validated again when it is created.
func (v *VMIRSValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	rs := &kubevirtv1.VirtualMachineInstanceReplicaSet{}
	if resp := decodeKubevirtKind(req, vmirsResource, rs); resp != nil {
		return *resp
	}
	return deny(ValidateVMIRSSpec(field.NewPath("spec"), &rs.Spec))
}

// ValidateVMIRSSpec checks a replica set spec at path f as upstream's
// ValidateVMIRSSpec: a template is required, its spec must be a valid VMI
// spec, and the selector must parse and match the template's labels (an
// absent selector matches nothing). The template's metadata is not
// checked, unlike a VM's.
func ValidateVMIRSSpec(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceReplicaSetSpec) []metav1.StatusCause {
	if spec.Template == nil {
		return []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Field: f.Child("template").String(),
			Message: "missing virtual machine template."}}
	}
	causes := ValidateVMISpec(f.Child("template", "spec"), &spec.Template.Spec)
	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	bad := metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: f.Child("selector").String()}
	switch {
	case err != nil:
		bad.Message = err.Error()
	case !selector.Matches(labels.Set(spec.Template.ObjectMeta.Labels)):
		bad.Message = "selector does not match labels."
	default:
		return causes
	}
	return append(causes, bad)
}

// vmirsRules are upstream's: CREATE and UPDATE in every version it serves.
func vmirsRules() []admissionregistrationv1.RuleWithOperations {
	return kubevirtKindRules(vmirsResource)
}
