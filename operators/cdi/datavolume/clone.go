package datavolume

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// isClone tells whether the DataVolume copies another claim, named
// directly or through a DataSource (sourceRef).
func isClone(dv *cdiv1.DataVolume) bool {
	return (dv.Spec.Source != nil && dv.Spec.Source.PVC != nil) || dv.Spec.SourceRef != nil
}

// sourceRefPVC resolves a DataSource reference to the claim it points at;
// notReady says why it cannot be used yet.
func sourceRefPVC(ctx context.Context, c client.Reader, dv *cdiv1.DataVolume) (ref *cdiv1.DataVolumeSourcePVC, notReady string, err error) {
	if dv.Spec.SourceRef == nil {
		return dv.Spec.Source.PVC, "", nil
	}
	ns := dv.Namespace
	if n := dv.Spec.SourceRef.Namespace; n != nil && *n != "" {
		ns = *n
	}
	key := types.NamespacedName{Namespace: ns, Name: dv.Spec.SourceRef.Name}
	ds := &cdiv1.DataSource{}
	if err := c.Get(ctx, key, ds); apierrors.IsNotFound(err) {
		return nil, fmt.Sprintf("SourceRef %s/%s/%s not found", cdiv1.DataVolumeDataSource, ns, key.Name), nil
	} else if err != nil {
		return nil, "", fmt.Errorf("reading DataSource %s: %w", key, err)
	}
	if ds.Spec.Source.PVC == nil {
		return nil, fmt.Sprintf("DataSource %s has no pvc source yet", key), nil
	}
	return ds.Spec.Source.PVC, "", nil
}

// cloneSrc is a clone's bound source: where its disk is, how big its claim
// is, and the node affinity that keeps the target next to it.
type cloneSrc struct {
	target
	size     int64
	affinity *corev1.Affinity
}

// cloneSource reads a clone's source claim. notReady says why the clone
// must wait (no such claim yet, not bound, still being populated); it is
// empty when the source can be copied, and for DataVolumes that are not
// clones.
func (r *Reconciler) cloneSource(ctx context.Context, dv *cdiv1.DataVolume) (src cloneSrc, notReady string, err error) {
	if !isClone(dv) {
		return src, "", nil
	}
	ref, notReady, err := sourceRefPVC(ctx, r.Client, dv)
	if err != nil || notReady != "" {
		return src, notReady, err
	}
	key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	pvc := &corev1.PersistentVolumeClaim{}
	if err := r.Client.Get(ctx, key, pvc); apierrors.IsNotFound(err) {
		return src, fmt.Sprintf("Clone source pvc %s not found", key), nil
	} else if err != nil {
		return src, "", fmt.Errorf("reading clone source %s: %w", key, err)
	}
	if pvc.Status.Phase != corev1.ClaimBound {
		return src, fmt.Sprintf("Clone source pvc %s is not bound yet", key), nil
	}
	owner := &cdiv1.DataVolume{}
	if err := r.Client.Get(ctx, key, owner); err == nil && owner.Status.Phase != cdiv1.Succeeded {
		return src, fmt.Sprintf("Clone source %s is still being populated", key), nil
	}
	if src.target, err = r.target(ctx, pvc); err != nil {
		return src, "", err
	}
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	src.size = size.Value()
	pv := &corev1.PersistentVolume{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: pvc.Spec.VolumeName}, pv); err == nil && pv.Spec.NodeAffinity != nil {
		src.affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: pv.Spec.NodeAffinity.Required,
		}}
	}
	return src, "", nil
}

// sourceNotReady is a clone waiting for its source.
func sourceNotReady(dv *cdiv1.DataVolume, why string) cdiv1.DataVolumeStatus {
	st := pendingStatus(dv, cdiv1.CloneScheduled)
	st.Conditions[2] = cond(cdiv1.DataVolumeRunning, corev1.ConditionFalse, "CloneSourceNotReady", why)
	return st
}

func scheduledReason(dv *cdiv1.DataVolume) string {
	switch {
	case isClone(dv):
		return "CloneScheduled"
	case isUpload(dv):
		return "UploadScheduled"
	}
	return "ImportScheduled"
}
