// Package storageprofile keeps one CDI StorageProfile per StorageClass, so
// DataVolumes of the storage form get their access and volume modes chosen
// from what the class's provisioner is known to support.
package storageprofile

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// knownProperties are the claim properties of provisioners whose
// capabilities are known, as CDI's capabilities table has them.
var knownProperties = map[string][]cdiv1.ClaimPropertySet{
	"kubevirt.io.hostpath-provisioner": {{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeMode: ptr.To(corev1.PersistentVolumeFilesystem)}},
	"kubevirt.io/hostpath-provisioner": {{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeMode: ptr.To(corev1.PersistentVolumeFilesystem)}},
}

// Reconciler reconciles StorageClasses into StorageProfiles.
type Reconciler struct {
	Client client.Client
}

// Reconcile creates the class's StorageProfile and writes its status: the
// spec's claim property sets when the user set them, else the known ones.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	sc := &storagev1.StorageClass{}
	if err := r.Client.Get(ctx, req.NamespacedName, sc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sp := &cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: sc.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sp, func() error {
		return controllerutil.SetOwnerReference(sc, sp, r.Client.Scheme())
	}); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("writing StorageProfile %s: %w", sc.Name, err)
	}
	want := cdiv1.StorageProfileStatus{
		StorageClass: &sc.Name, Provisioner: &sc.Provisioner,
		ClaimPropertySets: knownProperties[sc.Provisioner],
		CloneStrategy:     sp.Spec.CloneStrategy,
	}
	if len(sp.Spec.ClaimPropertySets) > 0 {
		want.ClaimPropertySets = sp.Spec.ClaimPropertySets
	}
	if equality.Semantic.DeepEqual(sp.Status, want) {
		return ctrl.Result{}, nil
	}
	base := sp.DeepCopy()
	sp.Status = want
	if err := r.Client.Status().Patch(ctx, sp, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing status of StorageProfile %s: %w", sc.Name, err)
	}
	return ctrl.Result{}, nil
}

// SetupWithManager watches StorageClasses and the profiles they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("cdi-storageprofile").
		For(&storagev1.StorageClass{}).Owns(&cdiv1.StorageProfile{}).Complete(r)
}
