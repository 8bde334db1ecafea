// Package cdiconfig keeps CDI's cluster-wide CDIConfig "config": its spec
// follows the CDI CR's spec.config, and its status holds the values the
// DataVolume controller and users read (filesystem overhead, upload proxy
// URL, scratch space class).
package cdiconfig

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/virtflow/virtflow/kube/storageclass"
)

// Name is the one CDIConfig CDI keeps.
const Name = "config"

// What cdi-operator deploys cdi-uploadproxy with, as upstream names them:
// its Service, and the ConfigMap holding the CA bundle (under BundleKey)
// its certificate chains to.
const (
	UploadProxyService = "cdi-uploadproxy"
	UploadProxyBundle  = "cdi-uploadproxy-signer-bundle"
	BundleKey          = "ca-bundle.crt"
)

// DefaultFilesystemOverhead is CDI's default overhead of filesystem volumes.
const DefaultFilesystemOverhead = cdiv1.Percent("0.055")

// Reconciler reconciles the CDI CR into CDIConfig "config".
type Reconciler struct {
	Client client.Client
	// UploadProxyURL is where cdi-uploadproxy listens, unless the config
	// overrides it; UploadProxyCA is the PEM its certificate chains to.
	UploadProxyURL, UploadProxyCA string
	// Namespace, when UploadProxyURL is empty, is where cdi-operator
	// deployed cdi-uploadproxy: its URL is then its Service's cluster
	// IP and its CA the signer bundle beside it.
	Namespace string
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
	url, ca, err := r.uploadProxy(ctx)
	if err != nil {
		return st, err
	}
	if u := cfg.Spec.UploadProxyURLOverride; u != nil {
		st.UploadProxyURL = u
	} else if url != "" {
		st.UploadProxyURL = &url
	}
	if ca != "" {
		st.UploadProxyCA = &ca
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
	b := ctrl.NewControllerManagedBy(mgr).Named("cdi-config").
		For(&cdiv1.CDIConfig{}).Watches(&cdiv1.CDI{}, all).Watches(&storagev1.StorageClass{}, all)
	if r.UploadProxyURL == "" && r.Namespace != "" {
		proxy := builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == r.Namespace && (o.GetName() == UploadProxyService || o.GetName() == UploadProxyBundle)
		}))
		b = b.Watches(&corev1.Service{}, all, proxy).Watches(&corev1.ConfigMap{}, all, proxy)
	}
	return b.Complete(r)
}

// uploadProxy is cdi-uploadproxy's URL and CA: as configured, or read from
// what cdi-operator deployed in Namespace (empty until it has).
func (r *Reconciler) uploadProxy(ctx context.Context) (string, string, error) {
	if r.UploadProxyURL != "" || r.Namespace == "" {
		return r.UploadProxyURL, r.UploadProxyCA, nil
	}
	svc := &corev1.Service{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: UploadProxyService}, svc)
	if client.IgnoreNotFound(err) != nil {
		return "", "", fmt.Errorf("reading Service %s: %w", UploadProxyService, err)
	}
	var url string
	if ip := svc.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
		url = "https://" + ip
	}
	cm := &corev1.ConfigMap{}
	err = r.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: UploadProxyBundle}, cm)
	if client.IgnoreNotFound(err) != nil {
		return "", "", fmt.Errorf("reading ConfigMap %s: %w", UploadProxyBundle, err)
	}
	return url, cm.Data[BundleKey], nil
}
