package virtadmission

import (
	"fmt"
	"runtime"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// matcher is what upstream's mutating webhook checks of an instancetype
// or preference matcher.
type matcher struct {
	path                        *field.Path
	what                        string // InstancetypeMatcher or PreferenceMatcher
	name, kind, infer, revision string
	policy                      *kubevirtv1.InferFromVolumeFailurePolicy
	oldName, oldRevision        string
	hasOld                      bool
}

func matchersToCheck(vm, old *kubevirtv1.VirtualMachine) []matcher {
	var out []matcher
	if m := vm.Spec.Instancetype; m != nil {
		c := matcher{path: field.NewPath("spec", "instancetype"), what: "InstancetypeMatcher", name: m.Name, kind: m.Kind,
			infer: m.InferFromVolume, revision: m.RevisionName, policy: m.InferFromVolumeFailurePolicy}
		if old != nil && old.Spec.Instancetype != nil {
			c.hasOld, c.oldName, c.oldRevision = true, old.Spec.Instancetype.Name, old.Spec.Instancetype.RevisionName
		}
		out = append(out, c)
	}
	if m := vm.Spec.Preference; m != nil {
		c := matcher{path: field.NewPath("spec", "preference"), what: "PreferenceMatcher", name: m.Name, kind: m.Kind,
			infer: m.InferFromVolume, revision: m.RevisionName, policy: m.InferFromVolumeFailurePolicy}
		if old != nil && old.Spec.Preference != nil {
			c.hasOld, c.oldName, c.oldRevision = true, old.Spec.Preference.Name, old.Spec.Preference.RevisionName
		}
		out = append(out, c)
	}
	return out
}

// matcherCauses are upstream's refusals of a matcher's shape: a name
// changed under the same revision on update, then per matcher a missing
// name, a name or kind beside inferFromVolume, an unknown failure policy.
// Inferring from a volume is not built yet and says so.
func matcherCauses(vm, old *kubevirtv1.VirtualMachine) []metav1.StatusCause {
	ms := matchersToCheck(vm, old)
	for _, m := range ms {
		if m.hasOld && m.revision != "" && m.name != m.oldName && m.revision == m.oldRevision {
			return []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: m.path.Child("revisionName").String(),
				Message: "the Matcher Name has been updated without updating the RevisionName"}}
		}
	}
	for _, m := range ms {
		var causes []metav1.StatusCause
		if m.name == "" && m.infer == "" {
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotFound, Field: m.path.String(),
				Message: fmt.Sprintf("Either Name or InferFromVolume should be provided within the %s", m.what)})
		}
		if m.infer != "" && m.name != "" {
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotSupported, Field: m.path.Child("name").String(),
				Message: "Name already set, should be cleared before setting inferFromVolume"})
		}
		if m.infer != "" && m.kind != "" {
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotSupported, Field: m.path.Child("kind").String(),
				Message: "Kind already set, should be cleared before setting inferFromVolume"})
		}
		if p := m.policy; p != nil && *p != kubevirtv1.IgnoreInferFromVolumeFailure && *p != kubevirtv1.RejectInferFromVolumeFailure {
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: m.path.Child("inferFromVolumeFailurePolicy").String(),
				Message: fmt.Sprintf("Invalid value '%s' for InferFromVolumeFailurePolicy", *p)})
		}
		if len(causes) == 0 && m.infer != "" {
			causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotSupported, Field: m.path.Child("inferFromVolume").String(),
				Message: "inferFromVolume is not supported yet by this virtflow release; name the " + m.what[:len(m.what)-len("Matcher")] + " instead"})
		}
		if len(causes) > 0 {
			return causes
		}
	}
	return nil
}

// setVMDefaults is upstream's VM defaulting: a firmware UUID and serial on
// creation (so every VMI of the VM is the same machine to its guest), the
// architecture and the machine type. The rest of the defaults belong to
// the VMI, where its mutator sets them.
func setVMDefaults(vm *kubevirtv1.VirtualMachine, create bool) {
	t := vm.Spec.Template
	if t == nil {
		return
	}
	d := &t.Spec.Domain
	if create {
		if d.Firmware == nil {
			d.Firmware = &kubevirtv1.Firmware{}
		}
		if d.Firmware.UUID == "" {
			d.Firmware.UUID = types.UID(uuid.New().String())
		}
		if d.Firmware.Serial == "" {
			d.Firmware.Serial = uuid.New().String()
		}
	}
	if t.Spec.Architecture == "" {
		t.Spec.Architecture = runtime.GOARCH
	}
	if d.Machine == nil || d.Machine.Type == "" {
		d.Machine = &kubevirtv1.Machine{Type: DefaultMachineType}
	}
}
