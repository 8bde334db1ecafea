package hyperconverged

import (
	"context"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// The namespace guard's answers, in HCO's words.
const (
	admittingDeletionMessage = "the hcoNamespace doesn't contain HyperConverged CR, admitting its deletion"
	deniedDeletionMessage    = "HyperConverged CR is still present, please remove it before deleting the containing hcoNamespace"
)

// NamespaceMutator refuses deleting the install namespace while the
// HyperConverged lives in it, which would otherwise strand its finalizer.
// HCO registers it as a mutating webhook, so it runs before the
// namespace's deletion starts.
type NamespaceMutator struct {
	Reader    client.Reader
	Namespace string
	Decoder   admission.Decoder
}

// Handle guards DELETE of a Namespace and lets anything else through.
func (m *NamespaceMutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Delete {
		return admission.Allowed(ignoreOperationMessage)
	}
	// The namespace being deleted comes in OldObject.
	ns := &corev1.Namespace{}
	if err := m.Decoder.DecodeRaw(req.OldObject, ns); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if ns.Name != m.Namespace {
		return admission.Allowed(admittingDeletionMessage)
	}
	hc := &hcov1beta1.HyperConverged{}
	err := m.Reader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: hcov1beta1.HyperConvergedName}, hc)
	switch {
	case apierrors.IsNotFound(err):
		return admission.Allowed(admittingDeletionMessage)
	case err != nil:
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.Denied(deniedDeletionMessage)
}
