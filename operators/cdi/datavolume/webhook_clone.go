package datavolume

import (
	"context"
	"errors"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
)

// authorizeClone lets a clone through only when its requester may clone
// from the source namespace, as CDI's mutating webhook does on CREATE and
// UPDATE: for a claim, create datavolumes/source or pods there; for a
// snapshot, create datavolumes/source, or both pods and pvcs. The source is
// the pvc or snapshot source, or what a sourceRef's DataSource points at.
// done says the response is final.
func (v *Validator) authorizeClone(ctx context.Context, req admission.Request, dv *cdiv1.DataVolume) (resp admission.Response, done bool) {
	if v.Client == nil || dv.DeletionTimestamp != nil {
		return resp, false
	}
	// The decision is the API module's own, so which source is checked,
	// which reviews are sent and when a pre-populated DataVolume may skip
	// them follow CDI's release.
	auth, err := dv.AuthorizeUser(req.Namespace, req.Name, authProxy{ctx: ctx, client: v.Client, reader: v.reader()}, req.UserInfo)
	if errors.Is(err, cdiv1.ErrNoTokenOkay) {
		return resp, false
	}
	if err != nil {
		// CDI answers lookups that fail (a missing DataSource or source
		// namespace included) with the API server's error as it is.
		return cdiadmission.BadRequest(err), true
	}
	if !auth.Allowed {
		// CDI names the pvc source's namespace whatever the source is.
		return cdiadmission.Reject(cdiadmission.Invalid(field.NewPath("spec", "source", "PVC", "namespace"), auth.Reason)), true
	}
	return resp, false
}

// authProxy is what the API module's authorization reads and asks through.
// Errors pass unwrapped: their text is what the requester sees, as with CDI.
type authProxy struct {
	ctx    context.Context
	client client.Client
	reader client.Reader
}

// CreateSar sends a SubjectAccessReview and returns it with its status.
func (p authProxy) CreateSar(sar *authorizationv1.SubjectAccessReview) (*authorizationv1.SubjectAccessReview, error) {
	if err := p.client.Create(p.ctx, sar); err != nil {
		return nil, err
	}
	return sar, nil
}

// GetNamespace reads the clone source's namespace.
func (p authProxy) GetNamespace(name string) (*corev1.Namespace, error) {
	ns := &corev1.Namespace{}
	if err := p.reader.Get(p.ctx, types.NamespacedName{Name: name}, ns); err != nil {
		return nil, err
	}
	return ns, nil
}

// GetDataSource reads the DataSource a sourceRef names.
func (p authProxy) GetDataSource(namespace, name string) (*cdiv1.DataSource, error) {
	ds := &cdiv1.DataSource{}
	if err := p.reader.Get(p.ctx, types.NamespacedName{Namespace: namespace, Name: name}, ds); err != nil {
		return nil, err
	}
	return ds, nil
}
