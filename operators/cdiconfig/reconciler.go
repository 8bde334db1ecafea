// Package cdiconfig keeps CDI's cluster-wide CDIConfig "config": its spec
// follows the CDI CR's spec.config, and its status holds the values the
// DataVolume controller and users read (filesystem overhead, upload proxy
// URL, scratch space class).
package cdiconfig

import (
	"context"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/virtflow/virtflow/kube/storageclass"
)

// Name is the one CDIConfig CDI keeps.
const Name = "config"

// DefaultFilesystemOverhead is CDI's default overhead of filesystem volumes.
const DefaultFilesystemOverhead = cdiv1.Percent("0.055")

// Reconciler reconciles the CDI CR into CDIConfig "config".
type Reconciler struct {
	Client client.Client
	// UploadProxyURL is where cdi-uploadproxy listens, unless the config
	// overrides it; UploadProxyCA is the PEM its certificate chains to.
	UploadProxyURL, UploadProxyCA string
}

// Reconcile writes CDIConfig "config" from the (first) CDI CR.
func (r *Reconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	var cdis cdiv1.CDIList
	if err := r.Client.List(ctx, &cdis); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing CDI CRs: %w", err)
	}
	if len(cdis.Items) == 0 {
		return ctrl.Result{}, nil
	}
	owner := &cdis.Items[0]
	cfg := &cdiv1.CDIConfig{ObjectMeta: metav1.ObjectMeta{Name: Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cfg, func() error {
		if owner.Spec.Config != nil {
			cfg.Spec = *owner.Spec.Config.DeepCopy()
		}
		return controllerutil.SetOwnerReference(owner, cfg, r.Client.Scheme())
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing CDIConfig %s: %w", Name, err)
	}
	want, err := r.status(ctx, cfg)
	if err != nil || equality.Semantic.DeepEqual(cfg.Status, want) {
		return ctrl.Result{}, err
	}
	base := cfg.DeepCopy()
	cfg.Status = want
	// Upstream's CDIConfig CRD has no status subresource: status is
	// written with the object.
	if err := r.Client.Patch(ctx, cfg, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing status of CDIConfig %s: %w", Name, err)
	}
	return ctrl.Result{}, nil
}

func (r *Reconciler) status(ctx context.Context, cfg *cdiv1.CDIConfig) (cdiv1.CDIConfigStatus, error) {
	st := cdiv1.CDIConfigStatus{
		FilesystemOverhead: &cdiv1.FilesystemOverhead{Global: DefaultFilesystemOverhead},
		ImportProxy:        cfg.Spec.ImportProxy, ImagePullSecrets: cfg.Spec.ImagePullSecrets,
	}
	if o := cfg.Spec.FilesystemOverhead; o != nil {
		if o.Global != "" {
			st.FilesystemOverhead.Global = o.Global
		}
		st.FilesystemOverhead.StorageClass = o.StorageClass
	}
	if u := cfg.Spec.UploadProxyURLOverride; u != nil {
		st.UploadProxyURL = u
	} else if r.UploadProxyURL != "" {
		st.UploadProxyURL = &r.UploadProxyURL
	}
	if r.UploadProxyCA != "" {
		st.UploadProxyCA = &r.UploadProxyCA
	}
	if p := cfg.Spec.Preallocation; p != nil {
		st.Preallocation = *p
	}
	if sc := cfg.Spec.ScratchSpaceStorageClass; sc != nil {
		st.ScratchSpaceStorageClass = *sc
		return st, nil
	}
	name, err := storageclass.Default(ctx, r.Client)
	st.ScratchSpaceStorageClass = name
	return st, err
}

// SetupWithManager reconciles on CDI CRs, the config itself and storage
// classes (the scratch space class follows the default one).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	all := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []ctrl.Request {
		return []ctrl.Request{{NamespacedName: client.ObjectKey{Name: Name}}}
	})
	return ctrl.NewControllerManagedBy(mgr).Named("cdi-config").
		For(&cdiv1.CDIConfig{}).Watches(&cdiv1.CDI{}, all).Watches(&storagev1.StorageClass{}, all).Complete(r)
}
