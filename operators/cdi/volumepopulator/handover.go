package volumepopulator

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
)

// handOver gives the filled prime's volume to the target, by pointing the
// volume's claimRef at it, and removes the prime once the target is bound
// and the prime is left Lost.
func (r *Reconciler) handOver(ctx context.Context, pvc, prime *corev1.PersistentVolumeClaim) (ctrl.Result, error) {
	done := podState(corev1.PodSucceeded, false, 0, false, "Completed", "Import Complete")
	first := pvc.Annotations[AnnPodPhase] != string(corev1.PodSucceeded)
	if err := r.annotate(ctx, pvc, targetAnnotations(prime, done, "")); err != nil {
		return ctrl.Result{}, err
	}
	if first {
		r.Recorder.Eventf(pvc, corev1.EventTypeNormal, reasonImportDone, "Successfully imported into %s", pvc.Name)
	}
	if pvc.Status.Phase != corev1.ClaimBound {
		if err := r.rebind(ctx, prime, pvc); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
	}
	if prime.Status.Phase != corev1.ClaimLost {
		// The volume controller has yet to notice the prime lost its
		// volume; its status change wakes the target.
		return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
	}
	if prime.Annotations[AnnRetainAfterDone] == "true" {
		r.Recorder.Event(prime, corev1.EventTypeWarning, reasonRetainedPrime, "PVC Prime retained in Lost state for debugging purposes")
		return ctrl.Result{}, nil
	}
	if err := r.Client.Delete(ctx, prime); err != nil {
		return ctrl.Result{}, fmt.Errorf("deleting prime claim %s/%s: %w", prime.Namespace, prime.Name, err)
	}
	return ctrl.Result{}, nil
}

// rebind points the prime's volume at the target; the volume controller
// then binds the target to it and marks the prime Lost.
func (r *Reconciler) rebind(ctx context.Context, prime, pvc *corev1.PersistentVolumeClaim) error {
	pv := &corev1.PersistentVolume{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: prime.Spec.VolumeName}, pv); err != nil {
		return fmt.Errorf("reading volume %s of prime claim %s/%s: %w", prime.Spec.VolumeName, prime.Namespace, prime.Name, err)
	}
	ref := pv.Spec.ClaimRef
	if ref == nil {
		return fmt.Errorf("PV %s claimRef is nil", pv.Name)
	}
	if boundTo(ref, pvc) {
		return nil
	}
	if !boundTo(ref, prime) {
		return fmt.Errorf("PV %s bound to unexpected claim %s", pv.Name, ref.Name)
	}
	pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion}
	if err := r.Client.Update(ctx, pv); err != nil {
		return fmt.Errorf("rebinding PV %s to PVC %s/%s: %w", pv.Name, pvc.Namespace, pvc.Name, err)
	}
	return nil
}

func boundTo(ref *corev1.ObjectReference, pvc *corev1.PersistentVolumeClaim) bool {
	return ref.Namespace == pvc.Namespace && ref.Name == pvc.Name && (ref.UID == "" || ref.UID == pvc.UID)
}
