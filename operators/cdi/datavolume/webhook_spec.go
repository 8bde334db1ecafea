package datavolume

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// minSize is the smallest disk CDI accepts, as KubeVirt refuses smaller.
const minSize = 1 << 20

// ValidateSpec checks a DataVolume spec as CDI does, with paths rooted at f
// ("spec" for a DataVolume, "Template" for a DataImportCron's template):
// the target, then external population or the source. It stops at the
// first failing check, except for external population, whose problems are
// all reported. nil means valid.
func ValidateSpec(f *field.Path, spec *cdiv1.DataVolumeSpec) []metav1.StatusCause {
	if causes := validateTarget(f, spec); causes != nil {
		return causes
	}
	if ds, ref := populationRefs(spec); ds != nil || ref != nil {
		return validateExternalPopulation(f, spec, ds, ref)
	}
	if (spec.Source == nil) == (spec.SourceRef == nil) {
		return cdiadmission.Invalid(f.Child("source"), "Data volume should have either Source or SourceRef, or be externally populated")
	}
	if spec.SourceRef != nil {
		return validateSourceRef(f, spec.SourceRef)
	}
	return validateSource(f, spec)
}

// validateTarget checks the pvc or storage form: one of them, its size,
// its storage class name and its access modes.
func validateTarget(f *field.Path, spec *cdiv1.DataVolumeSpec) []metav1.StatusCause {
	if spec.PVC == nil && spec.Storage == nil {
		return cdiadmission.Invalid(f.Child("PVC"), "Missing Data volume PVC")
	}
	if spec.PVC != nil && spec.Storage != nil {
		return cdiadmission.Invalid(f.Child("PVC", "Storage"), "Duplicate storage definition, both target storage and target pvc defined")
	}
	if causes := validateSize(f, spec); causes != nil {
		return causes
	}
	var class *string
	if spec.PVC != nil {
		class = spec.PVC.StorageClassName
	} else {
		class = spec.Storage.StorageClassName
	}
	if class != nil && *class != "" {
		if causes := cdiadmission.NameTooLong(*class, validation.DNS1123SubdomainMaxLength); causes != nil {
			return causes
		}
	}
	if spec.PVC != nil {
		return validatePVCAccessModes(f, spec.PVC.AccessModes)
	}
	return validateStorageAccessModes(f, spec.Storage.AccessModes)
}

// validateSize wants a size of at least 1MiB. Only the storage form of a
// clone (pvc or snapshot source, or sourceRef) may leave it out: it takes
// its source's size.
func validateSize(f *field.Path, spec *cdiv1.DataVolumeSpec) []metav1.StatusCause {
	name, requests := "Storage", corev1.ResourceList(nil)
	if spec.PVC != nil {
		name, requests = "PVC", spec.PVC.Resources.Requests
	} else {
		requests = spec.Storage.Resources.Requests
	}
	at := f.Child(name, "resources", "requests", "size")
	size, ok := requests[corev1.ResourceStorage]
	switch {
	case !ok && (spec.Storage == nil || !cloneShaped(spec)):
		return cdiadmission.Invalid(at, name+" size is missing")
	case !ok:
		return nil
	case size.IsZero() || size.Value() < 0:
		return cdiadmission.Invalid(at, name+" size can't be equal or less than zero")
	case size.Value() < minSize:
		return cdiadmission.Invalid(at, name+" size should be at least 1MiB")
	}
	return nil
}

// cloneShaped is CDI's notion of a clone when sizing: a pvc or snapshot
// source, or any sourceRef.
func cloneShaped(spec *cdiv1.DataVolumeSpec) bool {
	return spec.SourceRef != nil || (spec.Source != nil && (spec.Source.PVC != nil || spec.Source.Snapshot != nil))
}

// validatePVCAccessModes wants exactly one known mode in the pvc form.
func validatePVCAccessModes(f *field.Path, modes []corev1.PersistentVolumeAccessMode) []metav1.StatusCause {
	at := f.Child("PVC", "accessModes")
	switch {
	case len(modes) == 0:
		return cdiadmission.Invalid(at, "Required value: at least 1 access mode is required")
	case len(modes) > 1:
		return cdiadmission.Invalid(at, "PVC multiple accessModes")
	case !knownAccessMode(modes[0]):
		return cdiadmission.Invalid(at, unsupportedAccessMode(modes[0]))
	}
	return nil
}

// validateStorageAccessModes allows the storage form any number of known
// modes, none included (the StorageProfile fills them). CDI names the
// first mode and the pvc field whichever mode is wrong.
func validateStorageAccessModes(f *field.Path, modes []corev1.PersistentVolumeAccessMode) []metav1.StatusCause {
	for _, m := range modes {
		if !knownAccessMode(m) {
			return cdiadmission.Invalid(f.Child("PVC", "accessModes"), unsupportedAccessMode(modes[0]))
		}
	}
	return nil
}

func knownAccessMode(m corev1.PersistentVolumeAccessMode) bool {
	switch m {
	case corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOncePod:
		return true
	}
	return false
}

func unsupportedAccessMode(m corev1.PersistentVolumeAccessMode) string {
	return fmt.Sprintf(`Unsupported value: "%s": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`, string(m))
}

// validateSourceRef wants a named DataSource; whether it exists is the
// clone authorization's concern.
func validateSourceRef(f *field.Path, ref *cdiv1.DataVolumeSourceRef) []metav1.StatusCause {
	switch {
	case ref.Kind == "":
		return cdiadmission.Invalid(f.Child("sourceRef", "Kind"), "Missing sourceRef kind")
	case ref.Kind != cdiv1.DataVolumeDataSource:
		return cdiadmission.Invalid(f.Child("sourceRef", "Kind"), fmt.Sprintf("Unsupported sourceRef kind %s, currently only %s is supported",
			ref.Kind, cdiv1.DataVolumeDataSource))
	case ref.Name == "":
		return cdiadmission.Invalid(f.Child("sourceRef", "Name"), "Missing sourceRef name")
	}
	return nil
}
