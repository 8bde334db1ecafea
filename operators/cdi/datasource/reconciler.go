// Package datasource is CDI's DataSource controller: it reports whether the
// PVC a DataSource names is there to be cloned from, in the Ready
// condition consumers (dataVolumeTemplates with sourceRef) wait for.
package datasource

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/operators/cdi/cdistatus"
)

// Ready condition reasons, as upstream CDI reports them; a DataVolume that
// is still filling the PVC gives its phase as the reason.
const (
	ReasonReady       = "Ready"
	ReasonNoSource    = "NoSource"
	ReasonNotFound    = "NotFound"
	ReasonPending     = "Pending"
	ReasonUnsupported = "NotSupported"
)

// Reconciler writes DataSource status.
type Reconciler struct {
	Client client.Client
}

// Reconcile reads the DataSource's PVC and the DataVolume of the same
// name, and writes status.source and the Ready condition once when they
// changed. Sources that reference another DataSource are left to a later
// controller: resolving the chain is not done here.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ds := &cdiv1.DataSource{}
	if err := r.Client.Get(ctx, req.NamespacedName, ds); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if ds.Spec.Source.DataSource != nil {
		return ctrl.Result{}, nil
	}
	ready, err := r.readiness(ctx, ds.Spec.Source)
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.writeStatus(ctx, ds, cdiv1.DataSourceStatus{
		Source:     *ds.Spec.Source.DeepCopy(),
		Conditions: []cdiv1.DataSourceCondition{ready},
	})
}

// readiness reads what the source names and maps it to Ready.
func (r *Reconciler) readiness(ctx context.Context, src cdiv1.DataSourceSource) (cdiv1.DataSourceCondition, error) {
	if src.PVC == nil {
		if src.Snapshot != nil {
			return condition(corev1.ConditionFalse, ReasonUnsupported, "VolumeSnapshot sources are not supported"), nil
		}
		return condition(corev1.ConditionFalse, ReasonNoSource, "No source PVC set"), nil
	}
	key := types.NamespacedName{Namespace: src.PVC.Namespace, Name: src.PVC.Name}
	pvc := &corev1.PersistentVolumeClaim{}
	if err := r.Client.Get(ctx, key, pvc); apierrors.IsNotFound(err) {
		pvc = nil
	} else if err != nil {
		return cdiv1.DataSourceCondition{}, fmt.Errorf("reading PVC %s: %w", key, err)
	}
	dv := &cdiv1.DataVolume{}
	if err := r.Client.Get(ctx, key, dv); apierrors.IsNotFound(err) {
		dv = nil
	} else if err != nil {
		return cdiv1.DataSourceCondition{}, fmt.Errorf("reading DataVolume %s: %w", key, err)
	}
	return Ready(key, pvc, dv), nil
}

// Ready is the Ready condition of a DataSource whose PVC source is key,
// given the claim and the DataVolume of that name (nil when absent): a
// DataVolume must have Succeeded, and the claim must be Bound.
func Ready(key types.NamespacedName, pvc *corev1.PersistentVolumeClaim, dv *cdiv1.DataVolume) cdiv1.DataSourceCondition {
	if dv != nil && dv.Status.Phase != cdiv1.Succeeded {
		phase := string(dv.Status.Phase)
		if phase == "" {
			phase = string(cdiv1.Pending)
		}
		return condition(corev1.ConditionFalse, phase, fmt.Sprintf("Import DataVolume phase %s", phase))
	}
	switch {
	case pvc == nil:
		return condition(corev1.ConditionFalse, ReasonNotFound, fmt.Sprintf("No source PVC found: %s does not exist", key))
	case pvc.DeletionTimestamp != nil:
		return condition(corev1.ConditionFalse, ReasonNotFound, fmt.Sprintf("Source PVC %s is being deleted", key))
	case pvc.Status.Phase != corev1.ClaimBound:
		return condition(corev1.ConditionFalse, ReasonPending, fmt.Sprintf("Source PVC %s is %s", key, pvc.Status.Phase))
	}
	return condition(corev1.ConditionTrue, ReasonReady, "DataSource is ready to be consumed")
}

func condition(s corev1.ConditionStatus, reason, msg string) cdiv1.DataSourceCondition {
	return cdiv1.DataSourceCondition{
		Type:           cdiv1.DataSourceReady,
		ConditionState: cdiv1.ConditionState{Status: s, Reason: reason, Message: msg},
	}
}

// statusKind writes DataSource status; upstream's CRD has no status
// subresource.
var statusKind = cdistatus.Kind[*cdiv1.DataSource]{
	Name: "DataSource",
	Conditions: func(ds *cdiv1.DataSource) []cdistatus.Condition {
		return cdistatus.StatesOf(ds.Status.Conditions, func(c *cdiv1.DataSourceCondition) (string, *cdiv1.ConditionState) {
			return string(c.Type), &c.ConditionState
		})
	},
}

// writeStatus patches the DataSource once when its status changed.
func (r *Reconciler) writeStatus(ctx context.Context, ds *cdiv1.DataSource, st cdiv1.DataSourceStatus) error {
	_, err := statusKind.Write(ctx, r.Client, ds, func(ds *cdiv1.DataSource) { ds.Status = st })
	return err
}
