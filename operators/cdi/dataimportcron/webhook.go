package dataimportcron

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/robfig/cron/v3"
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

// ValidatePath is where cdi-apiserver serves DataImportCron validation.
const ValidatePath = "/dataimportcron-validate"

// unsupportedTemplate refuses, once CDI's checks have passed, a template
// this release cannot poll.
const unsupportedTemplate = "only registry url and http sources are polled by this virtflow release"

// Validator admits DataImportCrons as CDI's dataimportcron-validate
// webhook does, with its messages, fields and response shapes: the name,
// then on UPDATE only that the spec is unchanged, on CREATE the spec. One
// deliberate difference: virtflow polls http sources (by ETag), which CDI
// calls a missing source.
type Validator struct{}

// Handle admits CREATE and UPDATE.
func (v *Validator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Resource.Group != cdiv1.SchemeGroupVersion.Group || req.Resource.Resource != "dataimportcrons" {
		return cdiadmission.BadRequest(fmt.Errorf("unexpected resource: %s", req.Resource.Resource))
	}
	dic := &cdiv1.DataImportCron{}
	// A plain JSON decode, as CDI's, so a malformed object is reported
	// in the same words.
	if err := json.Unmarshal(req.Object.Raw, dic); err != nil {
		return cdiadmission.BadRequest(err)
	}
	if causes := cdiadmission.NameTooLong(dic.Name, validation.DNS1035LabelMaxLength); causes != nil {
		return cdiadmission.Reject(causes)
	}
	if req.Operation == admissionv1.Update {
		return specUnchanged(req, dic)
	}
	f := field.NewPath("spec")
	if causes := ValidateSpec(f, &dic.Spec); causes != nil {
		return cdiadmission.Reject(causes)
	}
	if causes := unpollable(f, &dic.Spec); causes != nil {
		return cdiadmission.Reject(causes)
	}
	return cdiadmission.Admit()
}

// specUnchanged admits an update that leaves the spec alone; CDI checks
// nothing else on UPDATE.
func specUnchanged(req admission.Request, dic *cdiv1.DataImportCron) admission.Response {
	old := &cdiv1.DataImportCron{}
	if err := json.Unmarshal(req.OldObject.Raw, old); err != nil {
		return cdiadmission.BadRequest(err)
	}
	if equality.Semantic.DeepEqual(dic.Spec, old.Spec) {
		return cdiadmission.Admit()
	}
	return cdiadmission.Reject([]metav1.StatusCause{{
		Type:    metav1.CauseTypeFieldValueDuplicate,
		Message: "Cannot update DataImportCron Spec",
		Field:   field.NewPath("DataImportCron", "Spec").String(),
	}})
}

// ValidateSpec checks a DataImportCron spec as CDI does, stopping at the
// first problem: the template's source and fields (the template's own
// paths are rooted at "Template", not under f), the schedule, importsToKeep,
// garbageCollect and the managed DataSource's name. nil means valid.
func ValidateSpec(f *field.Path, spec *cdiv1.DataImportCronSpec) []metav1.StatusCause {
	tmpl := &spec.Template.Spec
	if src := tmpl.Source; src == nil || (src.Registry == nil && src.PVC == nil && src.HTTP == nil) {
		return cdiadmission.Invalid(f.Child("Template"), "Missing source")
	}
	if tmpl.SourceRef != nil || tmpl.ContentType != "" || len(tmpl.Checkpoints) > 0 || tmpl.FinalCheckpoint {
		return cdiadmission.Invalid(f.Child("Template"), "Unsettable fields: SourceRef, ContentType, Checkpoints, FinalCheckpoint")
	}
	if causes := datavolume.ValidateSpec(field.NewPath("Template"), tmpl); causes != nil {
		return causes
	}
	if spec.Schedule != "" {
		if _, err := cron.ParseStandard(spec.Schedule); err != nil {
			return cdiadmission.Invalid(f.Child("Schedule"), "Illegal cron schedule")
		}
	}
	if spec.ImportsToKeep != nil && *spec.ImportsToKeep < 0 {
		return cdiadmission.Invalid(f.Child("ImportsToKeep"), "Illegal ImportsToKeep value")
	}
	if gc := spec.GarbageCollect; gc != nil && *gc != cdiv1.DataImportCronGarbageCollectNever && *gc != cdiv1.DataImportCronGarbageCollectOutdated {
		return cdiadmission.Invalid(f.Child("GarbageCollect"), "Illegal GarbageCollect value")
	}
	if spec.ManagedDataSource == "" {
		return cdiadmission.Invalid(f.Child("ManagedDataSource"), "Illegal ManagedDataSource value")
	}
	return cdiadmission.NameTooLong(spec.ManagedDataSource, validation.DNS1035LabelMaxLength)
}

// unpollable refuses a valid template whose source this release cannot
// poll: a claim, or an image stream.
func unpollable(f *field.Path, spec *cdiv1.DataImportCronSpec) []metav1.StatusCause {
	src := spec.Template.Spec.Source
	if src.HTTP != nil || (src.Registry != nil && src.Registry.URL != nil) {
		return nil
	}
	return cdiadmission.Invalid(f.Child("Template"), unsupportedTemplate)
}
