package datavolume

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/operators/cdi/cdiadmission"
	"github.com/virtflow/virtflow/operators/cdi/cdiconfig"
)

// Annotations and the feature gate that let a claim exist before its
// DataVolume, as CDI names them.
const (
	AnnPopulatedFor       = "cdi.kubevirt.io/storage.populatedFor"
	AnnAllowClaimAdoption = "cdi.kubevirt.io/allowClaimAdoption"
	ClaimAdoptionGate     = "DataVolumeClaimAdoption"
)

// claimExists refuses a new DataVolume whose claim already exists, unless
// the claim was populated for it, may be adopted, or is some DataVolume's.
// done says the response is final.
func (v *Validator) claimExists(ctx context.Context, dv *cdiv1.DataVolume) (resp admission.Response, done bool) {
	r := v.reader()
	if r == nil {
		return resp, false
	}
	pvc := &corev1.PersistentVolumeClaim{}
	err := r.Get(ctx, types.NamespacedName{Namespace: dv.GetNamespace(), Name: dv.GetName()}, pvc)
	if apierrors.IsNotFound(err) {
		return resp, false
	}
	if err != nil {
		// The API server's words, as CDI passes them on.
		return cdiadmission.BadRequest(err), true
	}
	allowed, err := claimMayExist(ctx, r, pvc, dv)
	if err != nil {
		return cdiadmission.BadRequest(err), true
	}
	if owner := metav1.GetControllerOf(pvc); allowed || (owner != nil && owner.Kind == "DataVolume") {
		return resp, false
	}
	return cdiadmission.Reject([]metav1.StatusCause{{
		Type:    metav1.CauseTypeFieldValueDuplicate,
		Message: fmt.Sprintf("Destination PVC %s/%s already exists", pvc.GetNamespace(), pvc.GetName()),
		Field:   field.NewPath("DataVolume", "Name").String(),
	}}), true
}

// claimMayExist: a claim populated for this DataVolume, or one it may
// adopt. The DataVolume's allowClaimAdoption annotation decides adoption,
// else CDIConfig's DataVolumeClaimAdoption gate; a claim created for this
// very DataVolume is never adopted.
func claimMayExist(ctx context.Context, r client.Reader, pvc *corev1.PersistentVolumeClaim, dv *cdiv1.DataVolume) (bool, error) {
	if pvc.Annotations[AnnPopulatedFor] == dv.Name {
		return true, nil
	}
	if uid, ok := pvc.Annotations[AnnCreatedForDataVolume]; ok && uid == string(dv.UID) {
		return false, nil
	}
	if val, ok := dv.Annotations[AnnAllowClaimAdoption]; ok {
		allow, _ := strconv.ParseBool(val)
		return allow, nil
	}
	cfg := &cdiv1.CDIConfig{}
	if err := r.Get(ctx, types.NamespacedName{Name: cdiconfig.Name}, cfg); err != nil {
		return false, fmt.Errorf("error getting CDIConfig: %w", err)
	}
	for _, g := range cfg.Spec.FeatureGates {
		if g == ClaimAdoptionGate {
			return true, nil
		}
	}
	return false, nil
}
