package virtadmission

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

const (
	// PresetExclusionAnnotation set to "true" keeps a VMI out of every
	// preset, as upstream's.
	PresetExclusionAnnotation = "virtualmachineinstancepresets.admission.kubevirt.io/exclude"
	// presetAnnotationPrefix starts the key marking each applied preset;
	// the preset's name ends it and the value is the API version.
	presetAnnotationPrefix = "virtualmachinepreset.kubevirt.io/"
	// presetDeprecationWarning is upstream's warning on creating a VMI
	// that presets were applied to.
	presetDeprecationWarning = "kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2."
)

// ApplyPresets merges into vmi the VirtualMachineInstancePresets of its
// namespace whose selector matches its labels, as upstream's VMI mutator
// does on creation. A preset part the VMI already sets is kept as the VMI
// has it; a preset left with nothing applied is skipped and logged. Two
// matching presets that disagree, or a selector that does not parse, are
// an error: the VMI is refused rather than shaped by an arbitrary winner.
// A nil reader applies no presets.
func ApplyPresets(ctx context.Context, r client.Reader, vmi *kubevirtv1.VirtualMachineInstance) error {
	log := logf.FromContext(ctx).WithValues("virtualmachineinstance", vmi.Namespace+"/"+vmi.Name)
	if r == nil {
		return nil
	}
	if presetExcluded(vmi) {
		log.Info("VMI excluded from preset logic")
		return nil
	}
	list := &kubevirtv1.VirtualMachineInstancePresetList{}
	if err := r.List(ctx, list, client.InNamespace(vmi.Namespace)); err != nil {
		return fmt.Errorf("listing VirtualMachineInstancePresets in %q: %w", vmi.Namespace, err)
	}
	presets, err := matchingPresets(log, list.Items, vmi)
	if err != nil {
		return err
	}
	if len(presets) == 0 {
		log.V(4).Info(fmt.Sprintf("Unable to find any preset that can be accepted to the VMI %s", vmi.Name))
		return nil
	}
	if err := presetConflicts(presets); err != nil {
		return fmt.Errorf("VirtualMachinePresets cannot be applied due to conflicts: %v", err)
	}
	for i := range presets {
		applyPreset(log, &presets[i], vmi)
	}
	return nil
}

// applyPreset merges one preset, annotating the VMI when any part of it
// took; parts the VMI set differently are only logged, as upstream.
func applyPreset(log logr.Logger, p *kubevirtv1.VirtualMachineInstancePreset, vmi *kubevirtv1.VirtualMachineInstance) {
	applied, err := mergeDomain(presetDomain(p), &vmi.Spec.Domain)
	if !applied {
		log.Info(fmt.Sprintf("Unable to apply VirtualMachineInstancePreset '%s': %v", p.Name, err))
		return
	}
	if err != nil {
		log.Info(fmt.Sprintf("Some settings were not applied for VirtualMachineInstancePreset '%s': %v", p.Name, err))
	}
	if vmi.Annotations == nil {
		vmi.Annotations = map[string]string{}
	}
	vmi.Annotations[presetAnnotationPrefix+p.Name] = kubevirtv1.GroupVersion.String()
	log.V(4).Info(fmt.Sprintf("Apply preset %s", p.Name))
}

// presetDomain is the preset's domain; one stored without it (the
// validator requires it) applies nothing instead of failing the VMI.
func presetDomain(p *kubevirtv1.VirtualMachineInstancePreset) *kubevirtv1.DomainSpec {
	if p.Spec.Domain == nil {
		return &kubevirtv1.DomainSpec{}
	}
	return p.Spec.Domain
}

func presetExcluded(vmi *kubevirtv1.VirtualMachineInstance) bool {
	return vmi.Annotations[PresetExclusionAnnotation] == "true"
}

// matchingPresets keeps the presets whose selector matches the VMI's
// labels; an empty selector matches every VMI.
func matchingPresets(log logr.Logger, all []kubevirtv1.VirtualMachineInstancePreset, vmi *kubevirtv1.VirtualMachineInstance) ([]kubevirtv1.VirtualMachineInstancePreset, error) {
	var matched []kubevirtv1.VirtualMachineInstancePreset
	for _, p := range all {
		selector, err := metav1.LabelSelectorAsSelector(&p.Spec.Selector)
		if err != nil {
			return nil, err
		}
		if selector.Matches(labels.Set(vmi.Labels)) {
			log.Info(fmt.Sprintf("VirtualMachineInstancePreset %s matches VirtualMachineInstance", p.Name))
			matched = append(matched, p)
		}
	}
	return matched, nil
}

// presetConflicts compares every pair of matching presets, so a VMI never
// depends on which of two disagreeing presets came first.
func presetConflicts(presets []kubevirtv1.VirtualMachineInstancePreset) error {
	var errs []error
	for i := range presets {
		for j := 0; j < i; j++ {
			if err := domainConflicts(presetDomain(&presets[i]), presetDomain(&presets[j])); err != nil {
				errs = append(errs, fmt.Errorf("presets '%s' and '%s' conflict: %v", presets[i].Name, presets[j].Name, err))
			}
		}
	}
	return utilerrors.NewAggregate(errs)
}

// presetWarnings is upstream's deprecation warning when the VMI carries a
// preset annotation; upstream looks for the word in any key, so one the
// user wrote counts too.
func presetWarnings(vmi *kubevirtv1.VirtualMachineInstance) []string {
	for key := range vmi.Annotations {
		if strings.Contains(key, "virtualmachinepreset") {
			return []string{presetDeprecationWarning}
		}
	}
	return nil
}

// presetDenied is upstream's refusal of a VMI presets cannot be applied
// to: 422 with the error as message, no reason or causes.
func presetDenied(err error) admission.Response {
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
		Result: &metav1.Status{Message: err.Error(), Code: http.StatusUnprocessableEntity},
	}}
}

// semanticEqual is the API's equality: quantities compare by value.
func semanticEqual(a, b any) bool { return equality.Semantic.DeepEqual(a, b) }
