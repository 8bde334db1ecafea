package virtadmission

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// validateDataVolumeTemplates wants each template well formed and used by
// a volume of the VM's template (a claim or DataVolume of its name).
// Upstream's path says dataVolumeTemplate, singular; the causes keep it.
func validateDataVolumeTemplates(f *field.Path, spec *kubevirtv1.VirtualMachineSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, dv := range spec.DataVolumeTemplates {
		p := f.Child("dataVolumeTemplate").Index(i)
		if c := validateDataVolumeTemplate(p, dv); c != nil {
			causes = append(causes, *c)
			continue
		}
		if !dataVolumeReferenced(spec.Template.Spec.Volumes, dv.Name) {
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, p,
				"DataVolumeTemplate entry %s must be referenced in the VMI template's 'volumes' list", p))
		}
	}
	return causes
}

func dataVolumeReferenced(vols []kubevirtv1.Volume, name string) bool {
	for _, v := range vols {
		if (v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == name) ||
			(v.DataVolume != nil && v.DataVolume.Name == name) {
			return true
		}
	}
	return false
}

// validateDataVolumeTemplate reports a template's first problem: no name,
// not exactly one of pvc and storage, or not exactly one way to populate it.
func validateDataVolumeTemplate(p *field.Path, dv kubevirtv1.DataVolumeTemplateSpec) *metav1.StatusCause {
	s := dv.Spec
	invalid := func(at *field.Path, msg string) *metav1.StatusCause {
		c := cause(at, "%s", msg)
		return &c
	}
	switch {
	case dv.Name == "":
		c := causeOf(metav1.CauseTypeFieldValueRequired, p.Child("name"), "'name' field must not be empty for DataVolumeTemplate entry %s.", p.Child("name"))
		return &c
	case s.PVC == nil && s.Storage == nil:
		return invalid(p.Child("PVC", "Storage"), "Missing Data volume PVC or Storage")
	case s.PVC != nil && s.Storage != nil:
		return invalid(p.Child("PVC", "Storage"), "Duplicate storage definition, both target storage and target pvc defined")
	}
	external := false
	if s.PVC != nil {
		external = s.PVC.DataSourceRef != nil || s.PVC.DataSource != nil
	} else {
		external = s.Storage.DataSourceRef != nil || s.Storage.DataSource != nil
	}
	sourced := s.Source != nil || s.SourceRef != nil
	switch {
	case external && sourced:
		return invalid(p.Child("source"), "External population is incompatible with Source and SourceRef")
	case !external && !sourced:
		return invalid(p.Child("source", "sourceRef"), "Data volume should have either Source, SourceRef, or be externally populated")
	case s.Source != nil:
		return validateDataVolumeSources(p, s.Source)
	}
	return nil
}

// validateDataVolumeSources wants exactly one source kind set.
func validateDataVolumeSources(p *field.Path, src *cdiv1.DataVolumeSource) *metav1.StatusCause {
	n := 0
	v := reflect.ValueOf(src).Elem()
	for i := range v.NumField() {
		if fv := v.Field(i); fv.Kind() == reflect.Pointer && !fv.IsNil() {
			n++
		}
	}
	var c metav1.StatusCause
	switch {
	case n == 0:
		c = cause(p.Child("source"), "Missing dataVolume valid source")
	case n > 1:
		c = cause(p.Child("source"), "Multiple dataVolume sources")
	default:
		return nil
	}
	return &c
}
