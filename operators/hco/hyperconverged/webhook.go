package hyperconverged

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// Webhook paths, as hco-webhook serves them for the v1beta1 API.
const (
	ValidatePath        = "/validate-hco-kubevirt-io-v1beta1-hyperconverged"
	MutatePath          = "/mutate-hco-kubevirt-io-v1beta1-hyperconverged"
	MutateNamespacePath = "/mutate-ns-hco-kubevirt-io"
)

// Validator admits v1beta1 HyperConverged objects as hco-webhook does: the
// spec checks, the component CRs the spec derives, a dry-run update of those
// that exist, and on deletion a dry-run deletion of KubeVirt and CDI, so
// their own guards (workloads still present) refuse it first.
type Validator struct {
	// Client reads the component CRs and dry-runs their updates and deletion.
	Client  client.Client
	Decoder admission.Decoder
}

// Handle validates CREATE, UPDATE and DELETE of a HyperConverged.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	hc := &hcov1beta1.HyperConverged{}
	switch req.Operation {
	case admissionv1.Create:
		if err := v.Decoder.Decode(req, hc); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		return respond(v.validateCreate(hc))
	case admissionv1.Update:
		old := &hcov1beta1.HyperConverged{}
		if err := v.Decoder.DecodeRaw(req.Object, hc); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		return respond(v.validateUpdate(ctx, hc, old))
	case admissionv1.Delete:
		// The object being deleted comes in OldObject.
		if err := v.Decoder.DecodeRaw(req.OldObject, hc); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		return respond(nil, v.validateDelete(ctx, hc))
	}
	return admission.Errored(http.StatusBadRequest, fmt.Errorf("unknown operation request %q", req.Operation))
}

func (v *Validator) validateCreate(hc *hcov1beta1.HyperConverged) ([]string, error) {
	warnings, err := specChecks(hc)
	warnings = append(warnings, featureGateWarningsOnCreate(hc)...)
	if err != nil {
		return warnings, err
	}
	return warnings, deriveAll(hc)
}

func (v *Validator) validateUpdate(ctx context.Context, hc, old *hcov1beta1.HyperConverged) ([]string, error) {
	warnings, err := specChecks(hc)
	warnings = append(warnings, featureGateWarningsOnUpdate(hc, old)...)
	if err != nil {
		return warnings, err
	}
	if reflect.DeepEqual(old.Spec, hc.Spec) && reflect.DeepEqual(old.Annotations, hc.Annotations) {
		return warnings, nil
	}
	return warnings, dryRunUpdates(ctx, v.Client, hc)
}

func (v *Validator) validateDelete(ctx context.Context, hc *hcov1beta1.HyperConverged) error {
	return dryRunDeletes(ctx, v.Client, hc)
}

// respond turns a check's outcome into the admission response: an API
// error (a component's own webhook refusing a dry run, a missing
// component) is passed on with its status, anything else is a denial;
// warnings ride along either way.
func respond(warnings []string, err error) admission.Response {
	resp := admission.Allowed("")
	var status *apierrors.StatusError
	switch {
	case errors.As(err, &status):
		st := status.Status()
		resp = admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &st}}
	case err != nil:
		resp = admission.Denied(err.Error())
	}
	if len(warnings) > 0 {
		resp = resp.WithWarnings(warnings...)
	}
	return resp
}
