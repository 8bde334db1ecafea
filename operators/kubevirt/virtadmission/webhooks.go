package virtadmission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/operators/kubevirt/instancetype"
)

// Webhook paths, as virt-api serves them.
const (
	VMValidatePath  = "/virtualmachines-validate"
	VMIValidatePath = "/virtualmachineinstances-validate-create"
	VMMutatePath    = "/virtualmachines-mutate"
	VMIMutatePath   = "/virtualmachineinstances-mutate"

	MigrationCreateValidatePath = "/migration-validate-create"
	MigrationUpdateValidatePath = "/migration-validate-update"
	MigrationMutatePath         = "/migration-mutate-create"
)

// VMValidator rejects invalid VirtualMachines.
type VMValidator struct {
	Decoder admission.Decoder
	// Reader finds the instancetype and preference a VM names; nil skips
	// them (the VM is then checked as if it named none).
	Reader client.Reader
}

// Handle validates CREATE and UPDATE as upstream does: on a copy with the
// instancetype and preference applied and defaults set, so what the VM
// will run is what gets checked. An instancetype or preference that
// cannot be found is no reason to refuse: the VM reports it once it syncs.
func (v *VMValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	vm := &kubevirtv1.VirtualMachine{}
	if err := v.Decoder.Decode(req, vm); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachine: %w", err))
	}
	if vm.DeletionTimestamp != nil {
		return admission.Allowed("")
	}
	cp := vm.DeepCopy()
	it, pref := v.matched(ctx, cp)
	if cp.Spec.Template != nil {
		if causes := applyMatched(it, pref, cp.Spec.Template); len(causes) > 0 {
			return deny(causes)
		}
		SetVMIDefaults(&cp.Spec.Template.Spec)
		if c := instancetype.RequirementsCause(it, pref, &cp.Spec.Template.Spec); c != nil {
			return deny([]metav1.StatusCause{*c})
		}
	}
	causes := ValidateVMSpec(&cp.Spec)
	if req.Operation == admissionv1.Update && len(causes) > 0 {
		causes = v.grandfather(ctx, req, causes)
	}
	resp := deny(causes)
	if resp.Allowed && vm.Spec.Running != nil {
		resp.Warnings = append(resp.Warnings, "spec.running is deprecated, please use spec.runStrategy instead.")
	}
	return resp
}

// grandfather lets an update keep what virtflow stopped accepting after
// the VM was stored (a field it refuses as not supported yet): the VM can
// still be started, stopped and edited, and a field it adds is refused.
func (v *VMValidator) grandfather(ctx context.Context, req admission.Request, causes []metav1.StatusCause) []metav1.StatusCause {
	old := &kubevirtv1.VirtualMachine{}
	if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil || old.Spec.Template == nil {
		return causes
	}
	it, pref := v.matched(ctx, old)
	if len(applyMatched(it, pref, old.Spec.Template)) > 0 {
		return causes
	}
	SetVMIDefaults(&old.Spec.Template.Spec)
	had := map[metav1.StatusCause]bool{}
	for _, c := range ValidateVMSpec(&old.Spec) {
		had[c] = true
	}
	var out []metav1.StatusCause
	for _, c := range causes {
		if !(had[c] && NotYet(c)) {
			out = append(out, c)
		}
	}
	return out
}

// matched finds what the VM names, logging (not refusing) a failed lookup.
func (v *VMValidator) matched(ctx context.Context, vm *kubevirtv1.VirtualMachine) (*v1beta1.VirtualMachineInstancetypeSpec, *v1beta1.VirtualMachinePreferenceSpec) {
	if v.Reader == nil {
		return nil, nil
	}
	log := logf.FromContext(ctx).WithValues("virtualmachine", vm.Namespace+"/"+vm.Name)
	it, err := instancetype.InstancetypeForVM(ctx, v.Reader, vm)
	if err != nil {
		log.Info(fmt.Sprintf("ignoring err %q when looking for instance type", err))
	}
	pref, err := instancetype.PreferenceForVM(ctx, v.Reader, vm)
	if err != nil {
		log.Info(fmt.Sprintf("ignoring err %q when looking for preference", err))
	}
	return it, pref
}

// applyMatched applies the instancetype and preference to the template:
// a spread the instancetype's vCPUs cannot fill, then every conflict, are
// refused with upstream's causes.
func applyMatched(it *v1beta1.VirtualMachineInstancetypeSpec, pref *v1beta1.VirtualMachinePreferenceSpec, t *kubevirtv1.VirtualMachineInstanceTemplateSpec) []metav1.StatusCause {
	if c := instancetype.SpreadCause(it, pref); c != nil {
		return []metav1.StatusCause{*c}
	}
	instancetype.PreferAutoattach(pref, &t.Spec)
	return instancetype.Apply(field.NewPath("spec", "template", "spec"), it, pref, &t.Spec, &t.ObjectMeta).StatusCauses()
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
	return deny(ValidateVMICreate(vmi))
}

// deny turns causes into upstream's denial: 422 Invalid carrying the first
// ten causes, their messages joined, so a user sees all problems at once.
func deny(causes []metav1.StatusCause) admission.Response {
	if len(causes) == 0 {
		return admission.Allowed("")
	}
	const most = 10
	shown := causes[:min(len(causes), most)]
	msgs := make([]string, len(shown))
	for i, c := range shown {
		msgs[i] = c.Message
	}
	msg := strings.Join(msgs, ", ")
	if len(causes) > most {
		msg = fmt.Sprintf("%s, and %v more validation errors", msg, len(causes)-most)
	}
	resp := admission.Denied(msg)
	resp.Result.Code = http.StatusUnprocessableEntity
	resp.Result.Reason = metav1.StatusReasonInvalid
	resp.Result.Details = &metav1.StatusDetails{Causes: shown}
	return resp
}

// VMMutator checks instancetype and preference matchers and applies
// upstream's VM defaults.
type VMMutator struct{ Decoder admission.Decoder }

// Handle defaults CREATE and UPDATE.
func (m *VMMutator) Handle(_ context.Context, req admission.Request) admission.Response {
	vm := &kubevirtv1.VirtualMachine{}
	if err := m.Decoder.Decode(req, vm); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachine: %w", err))
	}
	if vm.DeletionTimestamp != nil {
		return admission.Allowed("")
	}
	var old *kubevirtv1.VirtualMachine
	if req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		old = &kubevirtv1.VirtualMachine{}
		if err := m.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding old VirtualMachine: %w", err))
		}
	}
	if causes := matcherCauses(vm, old); len(causes) > 0 {
		return deny(causes)
	}
	setVMDefaults(vm, req.Operation == admissionv1.Create)
	return patched(req, vm)
}

// VMIMutator applies presets and defaults to VirtualMachineInstances on
// creation.
type VMIMutator struct {
	Decoder admission.Decoder
	// Reader lists the namespace's VirtualMachineInstancePresets; nil
	// applies none.
	Reader client.Reader
}

// Handle applies presets, then defaults, on CREATE: upstream's order, so
// defaults only fill what neither the VMI nor a preset sets.
func (m *VMIMutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create {
		return admission.Allowed("")
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := m.Decoder.Decode(req, vmi); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding VirtualMachineInstance: %w", err))
	}
	if err := ApplyPresets(ctx, m.Reader, vmi); err != nil {
		return presetDenied(err)
	}
	SetVMIDefaults(&vmi.Spec)
	resp := patched(req, vmi)
	if resp.Allowed {
		resp.Warnings = append(resp.Warnings, presetWarnings(vmi)...)
	}
	return resp
}

func patched(req admission.Request, obj any) admission.Response {
	raw, err := json.Marshal(obj)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, raw)
}
