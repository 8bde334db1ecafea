package datavolume

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// ValidatePath is where cdi-apiserver serves DataVolume validation.
const ValidatePath = "/datavolume-validate"

// Validator rejects invalid DataVolumes and any change to an existing
// DataVolume's spec, with CDI's messages, and a clone whose requester may
// not read the source namespace's claims as clone sources.
type Validator struct {
	Decoder admission.Decoder
	// Client asks the API server whether the requester may clone.
	Client client.Client
	// Reader reads the DataSource a sourceRef names from the API server
	// itself, as CDI's webhook does: a cache may not have seen a
	// DataSource created a moment before the DataVolume. Client's reads
	// serve when it is nil.
	Reader client.Reader
}

// Handle validates CREATE and UPDATE.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	dv := &cdiv1.DataVolume{}
	if err := v.Decoder.Decode(req, dv); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding DataVolume: %w", err))
	}
	if req.Operation == admissionv1.Update {
		old := &cdiv1.DataVolume{}
		if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding old DataVolume: %w", err))
		}
		if !equality.Semantic.DeepEqual(dv.Spec, old.Spec) {
			return deny([]metav1.StatusCause{{Type: metav1.CauseTypeFieldValueDuplicate,
				Message: "Cannot update DataVolume Spec", Field: field.NewPath("DataVolume").Child("Spec").String()}})
		}
		return admission.Allowed("")
	}
	if causes := ValidateSpec(field.NewPath("spec"), &dv.Spec); len(causes) > 0 {
		return deny(causes)
	}
	if !isClone(dv) || v.Client == nil {
		return admission.Allowed("")
	}
	var reader client.Reader = v.Client
	if v.Reader != nil {
		reader = v.Reader
	}
	src, notReady, err := sourceRefPVC(ctx, reader, dv)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if notReady != "" {
		return deny([]metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotFound, Message: notReady, Field: "spec.sourceRef"}})
	}
	return v.authorizeClone(ctx, req, src)
}

// authorizeClone lets a clone through only when its requester may create
// datavolumes/source in the source namespace, as CDI requires.
func (v *Validator) authorizeClone(ctx context.Context, req admission.Request, src *cdiv1.DataVolumeSourcePVC) admission.Response {
	u := req.UserInfo
	extra := map[string]authorizationv1.ExtraValue{}
	for k, val := range u.Extra {
		extra[k] = authorizationv1.ExtraValue(val)
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: u.Username, Groups: u.Groups, UID: u.UID, Extra: extra,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: src.Namespace, Verb: "create", Group: cdiv1.SchemeGroupVersion.Group, Resource: "datavolumes", Subresource: "source",
		},
	}}
	if err := v.Client.Create(ctx, sar); err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("checking clone permission: %w", err))
	}
	if !sar.Status.Allowed {
		return deny(invalid(field.NewPath("spec", "source", "PVC"), fmt.Sprintf(
			"insufficient permissions in clone source namespace: user %s may not create datavolumes/source in namespace %s", u.Username, src.Namespace)))
	}
	return admission.Allowed("")
}

func invalid(f *field.Path, msg string) []metav1.StatusCause {
	return []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: msg, Field: f.String()}}
}

// ValidateSpec checks a DataVolume's target and source.
func ValidateSpec(f *field.Path, spec *cdiv1.DataVolumeSpec) []metav1.StatusCause {
	if spec.PVC == nil && spec.Storage == nil {
		return invalid(f.Child("PVC"), "Missing Data volume PVC")
	}
	if spec.PVC != nil && spec.Storage != nil {
		return invalid(f.Child("PVC", "Storage"), "Duplicate storage definition, both target storage and target pvc defined")
	}
	if c := validateTarget(f, spec); c != nil {
		return c
	}
	if (spec.Source == nil) == (spec.SourceRef == nil) {
		return invalid(f.Child("source"), "Data volume should have either Source or SourceRef, or be externally populated")
	}
	if r := spec.SourceRef; r != nil {
		switch {
		case r.Kind == "":
			return invalid(f.Child("sourceRef", "Kind"), "Missing sourceRef kind")
		case r.Kind != cdiv1.DataVolumeDataSource:
			return invalid(f.Child("sourceRef", "Kind"), fmt.Sprintf("Unsupported sourceRef kind %s, currently only %s is supported", r.Kind, cdiv1.DataVolumeDataSource))
		case r.Name == "":
			return invalid(f.Child("sourceRef", "Name"), "Missing sourceRef name")
		}
		return nil
	}
	return validateSource(f.Child("source"), spec.Source)
}

func validateTarget(f *field.Path, spec *cdiv1.DataVolumeSpec) []metav1.StatusCause {
	name, requests := "Storage", corev1.ResourceList(nil)
	var modes []corev1.PersistentVolumeAccessMode
	if spec.PVC != nil {
		name, requests, modes = "PVC", spec.PVC.Resources.Requests, spec.PVC.AccessModes
		if len(modes) == 0 {
			return invalid(f.Child("PVC", "accessModes"), "Required value: at least 1 access mode is required")
		}
		if len(modes) > 1 {
			return invalid(f.Child("PVC", "accessModes"), "PVC multiple accessModes")
		}
	} else {
		requests, modes = spec.Storage.Resources.Requests, spec.Storage.AccessModes
	}
	for _, m := range modes {
		if m != corev1.ReadWriteOnce && m != corev1.ReadOnlyMany && m != corev1.ReadWriteMany {
			return invalid(f.Child("PVC", "accessModes"), fmt.Sprintf(
				"Unsupported value: %q: supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\"", string(m)))
		}
	}
	size, ok := requests[corev1.ResourceStorage]
	if !ok && spec.Storage != nil && ((spec.Source != nil && spec.Source.PVC != nil) || spec.SourceRef != nil) {
		// A clone of the storage form takes its source's size.
		return nil
	}
	if !ok {
		return invalid(f.Child(name, "resources", "requests", "size"), fmt.Sprintf("%s size is missing", name))
	}
	if size.Sign() <= 0 {
		return invalid(f.Child(name, "resources", "requests", "size"), fmt.Sprintf("%s size can't be equal or less than zero", name))
	}
	return nil
}

// validateSource wants exactly one source, and one virtflow can fill.
func validateSource(f *field.Path, s *cdiv1.DataVolumeSource) []metav1.StatusCause {
	n := 0
	for _, set := range []bool{s.HTTP != nil, s.S3 != nil, s.GCS != nil, s.Registry != nil, s.PVC != nil, s.Upload != nil,
		s.Blank != nil, s.Imageio != nil, s.VDDK != nil, s.Snapshot != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return invalid(f, fmt.Sprintf("Data volume must have exactly one source, found %d", n))
	}
	switch {
	case s.HTTP != nil:
		u, err := url.Parse(s.HTTP.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid(f.Child("http", "url"), fmt.Sprintf("source URL %q is not a valid http or https URL", s.HTTP.URL))
		}
		return nil
	case s.Registry != nil:
		if s.Registry.URL == nil || !strings.HasPrefix(*s.Registry.URL, "docker://") {
			return invalid(f.Child("registry", "url"), "source registry url should start with docker://")
		}
		return nil
	case s.PVC != nil:
		if s.PVC.Namespace == "" || s.PVC.Name == "" {
			return invalid(f.Child("PVC"), fmt.Sprintf("%s source PVC is not valid", f.Child("PVC")))
		}
		return nil
	case s.Blank != nil, s.Upload != nil:
		return nil
	}
	return invalid(f, "only http, registry, upload, pvc and blank sources are supported by this virtflow release")
}

func deny(causes []metav1.StatusCause) admission.Response {
	if len(causes) == 0 {
		return admission.Allowed("")
	}
	resp := admission.Denied(causes[0].Message)
	resp.Result.Reason = metav1.StatusReasonInvalid
	resp.Result.Details = &metav1.StatusDetails{Causes: causes}
	return resp
}
