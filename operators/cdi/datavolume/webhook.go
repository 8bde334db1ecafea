package datavolume

import (
	"context"
	"encoding/json"
	"errors"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// ValidatePath is where cdi-apiserver serves DataVolume validation.
const ValidatePath = "/datavolume-validate"

// dataVolumes is the only resource the DataVolume webhook admits.
var dataVolumes = metav1.GroupVersionResource{
	Group: cdiv1.SchemeGroupVersion.Group, Version: cdiv1.SchemeGroupVersion.Version, Resource: "datavolumes",
}

// Validator admits DataVolumes as CDI's datavolume-mutate and
// datavolume-validate webhooks do together: the clone authorization of the
// first, then the spec checks of the second, with CDI's messages, fields
// and response shapes. What passes CDI but this release cannot fill is
// refused last, on CREATE.
type Validator struct {
	// Client asks the API server whether the requester may clone. Without
	// it clones are not authorized and nothing is read.
	Client client.Client
	// Reader reads the DataSource a sourceRef names, the source namespace
	// and an existing target claim from the API server itself, as CDI's
	// webhook does: a cache may not have seen an object created a moment
	// before the DataVolume. Client's reads serve when it is nil.
	Reader client.Reader
}

// Handle admits CREATE and UPDATE.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Resource != dataVolumes {
		return cdiadmission.BadRequest(errors.New("expect resource to be 'datavolumes'"))
	}
	dv := &cdiv1.DataVolume{}
	// A plain JSON decode, as CDI's, so a malformed object is reported
	// in the same words.
	if err := json.Unmarshal(req.Object.Raw, dv); err != nil {
		return cdiadmission.BadRequest(err)
	}
	// CDI authorizes clones in its mutating webhook, which the API server
	// calls before any validating one.
	if resp, done := v.authorizeClone(ctx, req, dv); done {
		return resp
	}
	if req.Operation == admissionv1.Update {
		if resp, done := specChanged(req, dv); done {
			return resp
		}
	}
	if causes := cdiadmission.NameTooLong(dv.Name, validation.DNS1123SubdomainMaxLength); causes != nil {
		return cdiadmission.Reject(causes)
	}
	if req.Operation == admissionv1.Create {
		if resp, done := v.claimExists(ctx, dv); done {
			return resp
		}
	}
	if causes := ValidateSpec(field.NewPath("spec"), &dv.Spec); causes != nil {
		return cdiadmission.Reject(causes)
	}
	// Refusing an update would not remove a stored DataVolume, only block
	// its cleanup, so what this release cannot fill is refused at creation.
	if req.Operation == admissionv1.Create {
		if causes := unsupported(field.NewPath("spec"), &dv.Spec); causes != nil {
			return cdiadmission.Reject(causes)
		}
	}
	return cdiadmission.Admit()
}

// specChanged refuses any change to the spec, except the checkpoints of a
// multi-stage (vddk or imageio) import, which advance as it runs.
func specChanged(req admission.Request, dv *cdiv1.DataVolume) (admission.Response, bool) {
	old := &cdiv1.DataVolume{}
	if err := json.Unmarshal(req.OldObject.Raw, old); err != nil {
		return cdiadmission.BadRequest(err), true
	}
	if multiStage(&dv.Spec) && equality.Semantic.DeepEqual(withoutCheckpoints(dv.Spec), withoutCheckpoints(old.Spec)) {
		return admission.Response{}, false
	}
	if equality.Semantic.DeepEqual(dv.Spec, old.Spec) {
		return admission.Response{}, false
	}
	return cdiadmission.Reject([]metav1.StatusCause{{
		Type:    metav1.CauseTypeFieldValueDuplicate,
		Message: "Cannot update DataVolume Spec",
		Field:   field.NewPath("DataVolume", "Spec").String(),
	}}), true
}

func multiStage(spec *cdiv1.DataVolumeSpec) bool {
	return spec.Source != nil && len(spec.Checkpoints) > 0 && (spec.Source.VDDK != nil || spec.Source.Imageio != nil)
}

func withoutCheckpoints(spec cdiv1.DataVolumeSpec) *cdiv1.DataVolumeSpec {
	s := spec.DeepCopy()
	s.Checkpoints, s.FinalCheckpoint = nil, false
	return s
}

// reader is where the webhook reads objects; nil when it reads nothing.
func (v *Validator) reader() client.Reader {
	if v.Reader != nil {
		return v.Reader
	}
	if v.Client != nil {
		return v.Client
	}
	return nil
}
