package virtapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Webhook paths, as virt-api serves them.
const (
	VMValidatePath  = "/virtualmachines-validate"
	VMIValidatePath = "/virtualmachineinstances-validate-create"
	VMMutatePath    = "/virtualmachines-mutate"
	VMIMutatePath   = "/virtualmachineinstances-mutate"
)

// VMValidator rejects invalid VirtualMachines.
type VMValidator struct{ Decoder admission.Decoder }

// Handle validates CREATE and UPDATE.
func (v *VMValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	vm := &kubevirtv1.VirtualMachine{}
	if err := v.Decoder.Decode(req, vm); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachine: %w", err))
	}
	return deny(ValidateVMSpec(&vm.Spec))
}

// VMIValidator rejects invalid VirtualMachineInstances on creation; the
// spec of an existing VMI is immutable anyway.
type VMIValidator struct{ Decoder admission.Decoder }

// Handle validates CREATE.
func (v *VMIValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create {
		return admission.Allowed("")
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := v.Decoder.Decode(req, vmi); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachineInstance: %w", err))
	}
	return deny(ValidateVMISpec(field.NewPath("spec"), &vmi.Spec))
}

// deny turns causes into a denial carrying every cause, like upstream's
// admitters, so a user sees all problems at once.
func deny(causes []metav1.StatusCause) admission.Response {
	if len(causes) == 0 {
		return admission.Allowed("")
	}
	resp := admission.Denied(causes[0].Message)
	resp.Result.Reason = metav1.StatusReasonInvalid
	resp.Result.Details = &metav1.StatusDetails{Causes: causes}
	if len(causes) > 1 {
		msg := ""
		for i, c := range causes {
			if i > 0 {
				msg += ", "
			}
			msg += c.Message
		}
		resp.Result.Message = msg
	}
	return resp
}

// VMMutator applies defaults to VirtualMachine templates.
type VMMutator struct{ Decoder admission.Decoder }

// Handle defaults CREATE and UPDATE.
func (m *VMMutator) Handle(_ context.Context, req admission.Request) admission.Response {
	vm := &kubevirtv1.VirtualMachine{}
	if err := m.Decoder.Decode(req, vm); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachine: %w", err))
	}
	SetVMDefaults(&vm.Spec)
	return patched(req, vm)
}

// VMIMutator applies defaults to VirtualMachineInstances on creation.
type VMIMutator struct{ Decoder admission.Decoder }

// Handle defaults CREATE.
func (m *VMIMutator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create {
		return admission.Allowed("")
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := m.Decoder.Decode(req, vmi); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachineInstance: %w", err))
	}
	SetVMIDefaults(&vmi.Spec)
	return patched(req, vmi)
}

func patched(req admission.Request, obj any) admission.Response {
	raw, err := json.Marshal(obj)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, raw)
}
