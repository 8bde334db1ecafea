package datavolume

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/kube/storageclass"
	"github.com/virtflow/virtflow/operators/cdi/cdiconfig"
)

// Annotations CDI puts on the claims it creates and reads from DataVolumes.
const (
	AnnCreatedForDataVolume = "cdi.kubevirt.io/createdForDataVolume"
	AnnImmediateBinding     = "cdi.kubevirt.io/storage.bind.immediate.requested"
	AnnSelectedNode         = "volume.kubernetes.io/selected-node"
)

// DefaultFilesystemOverhead is CDI's default share of a filesystem volume
// kept free for the filesystem itself, used until CDIConfig says otherwise.
var DefaultFilesystemOverhead = mustPercent(cdiconfig.DefaultFilesystemOverhead)

func mustPercent(p cdiv1.Percent) float64 {
	v, err := strconv.ParseFloat(string(p), 64)
	if err != nil {
		panic(fmt.Sprintf("invalid percent %q: %v", p, err))
	}
	return v
}

// ErrNoStorageClass is a storage-form DataVolume with nothing to choose its
// access mode from, in CDI's words.
var ErrNoStorageClass = errors.New("DataVolume.storage spec is missing accessMode and no storageClass to choose profile")

// claim is the PersistentVolumeClaim a DataVolume fills, with the usable
// size of the disk image on it.
type claim struct {
	pvc    *corev1.PersistentVolumeClaim
	usable int64
}

// ensureClaim creates the DataVolume's claim (same name, owned by it) or
// reads the existing one.
func (r *Reconciler) ensureClaim(ctx context.Context, dv *cdiv1.DataVolume, srcSize int64) (claim, error) {
	want, err := r.desiredClaim(ctx, dv, srcSize)
	if err != nil {
		return claim{}, err
	}
	got := &corev1.PersistentVolumeClaim{}
	err = r.Client.Get(ctx, types.NamespacedName{Namespace: dv.Namespace, Name: dv.Name}, got)
	if apierrors.IsNotFound(err) {
		if err := r.Client.Create(ctx, want.pvc); err != nil && !apierrors.IsAlreadyExists(err) {
			return claim{}, fmt.Errorf("creating claim %s/%s: %w", dv.Namespace, dv.Name, err)
		}
		r.Recorder.Eventf(dv, corev1.EventTypeNormal, "Pending", "PVC %s Pending", dv.Name)
		return want, nil
	}
	if err != nil {
		return claim{}, fmt.Errorf("reading claim %s/%s: %w", dv.Namespace, dv.Name, err)
	}
	if !metav1.IsControlledBy(got, dv) {
		return claim{}, fmt.Errorf("claim %s/%s exists and does not belong to the DataVolume", dv.Namespace, dv.Name)
	}
	want.pvc = got
	return want, nil
}

// desiredClaim turns the pvc or storage form into a claim. The storage
// form fills access and volume modes from the class's StorageProfile and
// adds the filesystem overhead, so the disk gets the requested size; the
// pvc form is taken as written and the disk gets what is left after the
// overhead, as CDI does.
func (r *Reconciler) desiredClaim(ctx context.Context, dv *cdiv1.DataVolume, srcSize int64) (claim, error) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: dv.Name, Namespace: dv.Namespace, Labels: map[string]string{"app": "containerized-data-importer"},
		Annotations: map[string]string{AnnCreatedForDataVolume: string(dv.UID)},
	}}
	if v, ok := dv.Annotations[AnnImmediateBinding]; ok {
		pvc.Annotations[AnnImmediateBinding] = v
	}
	if err := controllerutil.SetControllerReference(dv, pvc, r.Client.Scheme()); err != nil {
		return claim{}, err
	}
	if dv.Spec.PVC != nil {
		pvc.Spec = *dv.Spec.PVC.DeepCopy()
		req := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
		overhead := r.filesystemOverhead(ctx, pvc.Spec.StorageClassName)
		return claim{pvc: pvc, usable: usableSize(req.Value(), overhead, pvc.Spec.VolumeMode)}, nil
	}
	if dv.Spec.Storage == nil {
		return claim{}, errors.New("DataVolume has neither spec.pvc nor spec.storage")
	}
	return r.storageClaim(ctx, dv.Spec.Storage, pvc, srcSize)
}

// A clone of the storage form may leave the size out: it takes the
// source's (srcSize).
func (r *Reconciler) storageClaim(ctx context.Context, st *cdiv1.StorageSpec, pvc *corev1.PersistentVolumeClaim, srcSize int64) (claim, error) {
	pvc.Spec = corev1.PersistentVolumeClaimSpec{
		AccessModes: st.AccessModes, VolumeMode: st.VolumeMode, Selector: st.Selector,
		StorageClassName: st.StorageClassName, VolumeName: st.VolumeName,
		DataSource: st.DataSource, DataSourceRef: st.DataSourceRef,
		Resources: corev1.VolumeResourceRequirements{Requests: st.Resources.Requests.DeepCopy(), Limits: st.Resources.Limits.DeepCopy()},
	}
	if err := r.applyProfile(ctx, &pvc.Spec); err != nil {
		return claim{}, err
	}
	if _, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; !ok && srcSize > 0 {
		// The source's claim already holds its overhead, and the disk
		// keeps the source's size (usable 0: nothing to grow to).
		if pvc.Spec.Resources.Requests == nil {
			pvc.Spec.Resources.Requests = corev1.ResourceList{}
		}
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = *resource.NewQuantity(srcSize, resource.BinarySI)
		return claim{pvc: pvc}, nil
	}
	req := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	size := req.Value()
	if overhead := r.filesystemOverhead(ctx, pvc.Spec.StorageClassName); isFilesystem(pvc.Spec.VolumeMode) && overhead > 0 {
		inflated := int64(math.Ceil(float64(size) / (1 - overhead)))
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = *resource.NewQuantity(alignUp(inflated), resource.BinarySI)
	}
	return claim{pvc: pvc, usable: size}, nil
}

// applyProfile picks the storage class (the default one when unset) and
// takes access and volume modes the user left out from its StorageProfile.
func (r *Reconciler) applyProfile(ctx context.Context, spec *corev1.PersistentVolumeClaimSpec) error {
	if spec.StorageClassName == nil {
		name, err := storageclass.Default(ctx, r.Client)
		if err != nil {
			return err
		}
		if name != "" {
			spec.StorageClassName = &name
		}
	}
	if len(spec.AccessModes) > 0 && spec.VolumeMode != nil {
		return nil
	}
	if spec.StorageClassName == nil {
		return ErrNoStorageClass
	}
	profile := &cdiv1.StorageProfile{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: *spec.StorageClassName}, profile); err != nil {
		return fmt.Errorf("%w: reading StorageProfile %s: %w", ErrNoStorageClass, *spec.StorageClassName, err)
	}
	if len(profile.Status.ClaimPropertySets) == 0 {
		return fmt.Errorf("%w: StorageProfile %s has no claim property sets", ErrNoStorageClass, *spec.StorageClassName)
	}
	set := profile.Status.ClaimPropertySets[0]
	if len(spec.AccessModes) == 0 {
		spec.AccessModes = set.AccessModes
	}
	if spec.VolumeMode == nil {
		spec.VolumeMode = set.VolumeMode
	}
	return nil
}

// filesystemOverhead is CDIConfig's overhead for the class (or its global
// one), or CDI's default.
func (r *Reconciler) filesystemOverhead(ctx context.Context, class *string) float64 {
	return filesystemOverhead(ctx, r.Client, class)
}

// UsableSize is what a disk image may take on the claim: its request less
// CDIConfig's filesystem overhead for its class on a filesystem volume.
func UsableSize(ctx context.Context, c client.Reader, pvc *corev1.PersistentVolumeClaim) int64 {
	req := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	return usableSize(req.Value(), filesystemOverhead(ctx, c, pvc.Spec.StorageClassName), pvc.Spec.VolumeMode)
}

func filesystemOverhead(ctx context.Context, c client.Reader, class *string) float64 {
	cfg := &cdiv1.CDIConfig{}
	if err := c.Get(ctx, types.NamespacedName{Name: "config"}, cfg); err != nil || cfg.Status.FilesystemOverhead == nil {
		return DefaultFilesystemOverhead
	}
	p := cfg.Status.FilesystemOverhead.Global
	if class != nil {
		if v, ok := cfg.Status.FilesystemOverhead.StorageClass[*class]; ok {
			p = v
		}
	}
	v, err := strconv.ParseFloat(string(p), 64)
	if err != nil || v < 0 || v >= 1 {
		return DefaultFilesystemOverhead
	}
	return v
}

func isFilesystem(mode *corev1.PersistentVolumeMode) bool {
	return mode == nil || *mode == corev1.PersistentVolumeFilesystem
}

// usableSize is what a disk image may take on a claim of size bytes.
func usableSize(size int64, overhead float64, mode *corev1.PersistentVolumeMode) int64 {
	if !isFilesystem(mode) {
		return size
	}
	return int64(float64(size)*(1-overhead)) &^ (1<<20 - 1)
}

func alignUp(n int64) int64 { return (n + 1<<20 - 1) &^ (1<<20 - 1) }
