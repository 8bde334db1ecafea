package hyperconverged

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

const (
	reasonInvalidRequest        = "InvalidRequest"
	invalidRequestMessageFormat = "Request does not match expected name (%v) and namespace (%v)"
)

// isTheHyperConverged tells the one HyperConverged the operator acts on
// from others the API admitted: HCO's webhook does not refuse other names,
// its reconciler ignores them.
func (r *Reconciler) isTheHyperConverged(hc *hcov1beta1.HyperConverged) bool {
	return hc.Name == hcov1beta1.HyperConvergedName && hc.Namespace == r.Namespace
}

// markInvalid tells the owner of another HyperConverged why nothing
// happens, as HCO does: ReconcileComplete is False with InvalidRequest and
// the other conditions are Unknown.
func (r *Reconciler) markInvalid(ctx context.Context, hc *hcov1beta1.HyperConverged) error {
	before := hc.DeepCopy()
	msg := fmt.Sprintf(invalidRequestMessageFormat, hcov1beta1.HyperConvergedName, r.Namespace)
	meta.SetStatusCondition(&hc.Status.Conditions, metav1.Condition{
		Type: hcov1beta1.ConditionReconcileComplete, Status: metav1.ConditionFalse,
		Reason: reasonInvalidRequest, Message: msg, ObservedGeneration: hc.Generation,
	})
	for _, typ := range []string{hcov1beta1.ConditionAvailable, hcov1beta1.ConditionProgressing, hcov1beta1.ConditionDegraded, hcov1beta1.ConditionUpgradeable} {
		if meta.FindStatusCondition(hc.Status.Conditions, typ) != nil {
			continue
		}
		meta.SetStatusCondition(&hc.Status.Conditions, metav1.Condition{
			Type: typ, Status: metav1.ConditionUnknown, Reason: "StatusUnknown", Message: "Unknown Status", ObservedGeneration: hc.Generation,
		})
	}
	if equality.Semantic.DeepEqual(before.Status, hc.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, hc, crclient.MergeFrom(before)); err != nil {
		return fmt.Errorf("reporting HyperConverged %s/%s as an invalid request: %w", hc.Namespace, hc.Name, err)
	}
	return nil
}
