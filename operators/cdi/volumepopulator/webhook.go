package volumepopulator

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
)

// ValidatePath is where cdi-apiserver serves populator source validation.
const ValidatePath = "/populator-validate"

// importSources is the populator source kind installed here; CDI's webhook
// also admits volumeuploadsources, which have no CRD here yet.
const importSources = "volumeimportsources"

// Validator admits VolumeImportSources as CDI's populator-validate webhook
// does, with its messages, fields and response shapes: on UPDATE that the
// spec is unchanged (but for a multi-stage import's checkpoints), then the
// name and the spec. What passes CDI but the populator cannot fill is
// refused last, on CREATE.
type Validator struct{}

// Handle admits CREATE and UPDATE.
func (v *Validator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Resource.Group != cdiv1.SchemeGroupVersion.Group || req.Resource.Resource != importSources {
		return cdiadmission.BadRequest(fmt.Errorf("unexpected resource: %s", req.Resource.Resource))
	}
	src := &cdiv1.VolumeImportSource{}
	// A plain JSON decode, as CDI's, so a malformed object is reported in
	// the same words.
	if err := json.Unmarshal(req.Object.Raw, src); err != nil {
		return cdiadmission.BadRequest(err)
	}
	if req.Operation == admissionv1.Update {
		if resp, done := specChanged(req, src); done {
			return resp
		}
	}
	if causes := cdiadmission.NameTooLong(src.Name, validation.DNS1035LabelMaxLength); causes != nil {
		return cdiadmission.Reject(causes)
	}
	f := field.NewPath("spec")
	if causes := ValidateSpec(f, &src.Spec); causes != nil {
		return cdiadmission.Reject(causes)
	}
	if req.Operation == admissionv1.Create {
		if causes := datavolume.Unsupported(f, dataVolumeSource(src.Spec.Source)); causes != nil {
			return cdiadmission.Reject(causes)
		}
	}
	return cdiadmission.Admit()
}

// ValidateSpec checks a VolumeImportSource spec as CDI does, stopping at
// the first problem: the content type, one source, a target claim for a
// multi-stage import, then the source's fields.
func ValidateSpec(f *field.Path, spec *cdiv1.VolumeImportSourceSpec) []metav1.StatusCause {
	if causes := datavolume.ContentTypeProblem(f, spec.ContentType); causes != nil {
		return causes
	}
	s := dataVolumeSource(spec.Source)
	switch n := datavolume.SourceCount(s); {
	case n == 0:
		return cdiadmission.Invalid(f.Child("source"), "Missing VolumeImport source")
	case n > 1:
		return cdiadmission.Invalid(f.Child("source"), "Multiple VolumeImport sources")
	}
	if multiStage(spec) && (spec.TargetClaim == nil || *spec.TargetClaim == "") {
		return cdiadmission.Invalid(f.Child("targetClaim"), "Unable to do multi-stage import without specifying a target claim")
	}
	return datavolume.SourceFields(f, s, spec.ContentType)
}

// specChanged refuses any change to the spec but the checkpoints of a
// multi-stage import, which advance as it runs.
func specChanged(req admission.Request, src *cdiv1.VolumeImportSource) (admission.Response, bool) {
	old := &cdiv1.VolumeImportSource{}
	if err := json.Unmarshal(req.OldObject.Raw, old); err != nil {
		return cdiadmission.BadRequest(err), true
	}
	newSpec, oldSpec := src.Spec.DeepCopy(), old.Spec.DeepCopy()
	if multiStage(newSpec) {
		for _, s := range []*cdiv1.VolumeImportSourceSpec{newSpec, oldSpec} {
			s.Checkpoints, s.FinalCheckpoint = nil, nil
		}
	}
	if equality.Semantic.DeepEqual(newSpec, oldSpec) {
		return admission.Response{}, false
	}
	return cdiadmission.Reject([]metav1.StatusCause{{
		Type:    metav1.CauseTypeFieldValueDuplicate,
		Message: "Cannot update VolumeImportSource Spec",
		Field:   field.NewPath("VolumeImportSource", "Spec").String(),
	}}), true
}

func multiStage(spec *cdiv1.VolumeImportSourceSpec) bool {
	s := spec.Source
	return s != nil && len(spec.Checkpoints) > 0 && (s.VDDK != nil || s.Imageio != nil)
}

// dataVolumeSource is the same source as a DataVolume spells it, so the
// DataVolume checks serve; nil for nil.
func dataVolumeSource(s *cdiv1.ImportSourceType) *cdiv1.DataVolumeSource {
	if s == nil {
		return nil
	}
	return &cdiv1.DataVolumeSource{HTTP: s.HTTP, S3: s.S3, Registry: s.Registry, GCS: s.GCS,
		Blank: s.Blank, Imageio: s.Imageio, VDDK: s.VDDK}
}
