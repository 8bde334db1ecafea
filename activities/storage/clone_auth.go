package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"go.temporal.io/sdk/temporal"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// CloneServiceAccount is whose permission a clone is checked for again on
// the node: the ServiceAccount of the target DataVolume's namespace, as
// CDI checks a DataImportCron's clones. The requester was checked at
// admission; this check does not trust the workflow that asks.
const CloneServiceAccount = "default"

// cloneSource is the directory of the clone's source: the claim the target
// DataVolume's spec names (directly or through its DataSource), which its
// namespace's ServiceAccount must be allowed to clone, bound to a hostpath
// volume of this node. The request's source directory is not trusted.
func (a *Activities) cloneSource(ctx context.Context, t target, givenDir string) (string, error) {
	src, err := a.authorizeClone(ctx, t.dv)
	if err != nil {
		return "", err
	}
	claim := &corev1.PersistentVolumeClaim{}
	if err := a.get(ctx, src, claim, "clone source claim"); err != nil {
		return "", err
	}
	pv, err := a.boundVolume(ctx, claim)
	if err != nil {
		return "", err
	}
	dir, err := a.volumeDir(pv)
	if err != nil {
		return "", err
	}
	if dir == t.dir {
		return "", mismatch("the clone source %s is the target's own volume", src)
	}
	if givenDir != "" && filepath.Clean(givenDir) != dir {
		return "", mismatch("the request's source directory %s is not clone source %s's, %s", givenDir, src, dir)
	}
	return dir, nil
}

// authorizeClone re-runs CDI's authorization of a clone for the
// DataVolume's namespace's ServiceAccount and returns the source claim,
// refusing with CDI's reason when it is not allowed.
func (a *Activities) authorizeClone(ctx context.Context, dv *cdiv1.DataVolume) (types.NamespacedName, error) {
	p := authProxy{ctx: ctx, c: a.Client}
	// The API module's own decision, so which source counts and which
	// reviews are sent follow CDI's release.
	resp, err := dv.AuthorizeSA(dv.Namespace, dv.Name, p, dv.Namespace, CloneServiceAccount)
	h := resp.Handler
	src := types.NamespacedName{Namespace: h.SourceNamespace, Name: h.SourceName}
	if src.Namespace == "" {
		src.Namespace = dv.Namespace
	}
	switch {
	case errors.Is(err, cdiv1.ErrNoTokenOkay) && h.SourceName == "":
		return src, mismatch("DataVolume %s/%s is not a clone", dv.Namespace, dv.Name)
	case errors.Is(err, cdiv1.ErrNoTokenOkay):
		// A pre-populated DataVolume may skip the check at admission;
		// one whose clone actually runs may not.
		resp.Allowed, resp.Reason, err = cdiv1.CanServiceAccountClonePVC(p.CreateSar, src.Namespace, src.Name, dv.Namespace, CloneServiceAccount)
	}
	switch {
	case apierrors.IsNotFound(err):
		// CDI answers a missing DataSource or source namespace with the
		// API server's words.
		return src, mismatch("%s", err.Error())
	case err != nil:
		return src, fmt.Errorf("authorizing the clone into DataVolume %s/%s: %w", dv.Namespace, dv.Name, err)
	case h.TokenResource.Resource != "persistentvolumeclaims":
		return src, mismatch("DataVolume %s/%s clones a %s; only claims are cloned here", dv.Namespace, dv.Name, h.TokenResource.Resource)
	case !resp.Allowed:
		return src, temporal.NewNonRetryableApplicationError(resp.Reason, cdi.ErrTypeCloneNotAuthorized, nil)
	}
	return src, nil
}

// authProxy is what the API module's authorization reads and asks
// through, with the node worker's own client. Errors pass unwrapped: the
// API module tells them apart by their kind.
type authProxy struct {
	ctx context.Context
	c   client.Client
}

// CreateSar sends a SubjectAccessReview and returns it with its status.
func (p authProxy) CreateSar(sar *authorizationv1.SubjectAccessReview) (*authorizationv1.SubjectAccessReview, error) {
	if err := p.c.Create(p.ctx, sar); err != nil {
		return nil, err
	}
	return sar, nil
}

// GetNamespace reads the clone source's namespace.
func (p authProxy) GetNamespace(name string) (*corev1.Namespace, error) {
	ns := &corev1.Namespace{}
	if err := p.c.Get(p.ctx, types.NamespacedName{Name: name}, ns); err != nil {
		return nil, err
	}
	return ns, nil
}

// GetDataSource reads the DataSource a sourceRef names.
func (p authProxy) GetDataSource(namespace, name string) (*cdiv1.DataSource, error) {
	ds := &cdiv1.DataSource{}
	if err := p.c.Get(p.ctx, types.NamespacedName{Namespace: namespace, Name: name}, ds); err != nil {
		return nil, err
	}
	return ds, nil
}
