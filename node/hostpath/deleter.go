package hostpath

import (
	"context"
	"fmt"
	"time"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/node/csi"
)

// deleter removes the directory of each released volume of this node whose
// reclaim policy is Delete, then the PersistentVolume itself.
type deleter struct {
	p *provisioner
}

func (d *deleter) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pv := &corev1.PersistentVolume{}
	if err := d.p.c.Get(ctx, req.NamespacedName, pv); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !d.ours(pv) || pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		return ctrl.Result{}, nil
	}
	if pv.Status.Phase != corev1.VolumeReleased && pv.Status.Phase != corev1.VolumeFailed {
		return ctrl.Result{}, nil
	}
	err := d.p.withController(ctx, func(cc csipb.ControllerClient) error {
		_, err := cc.DeleteVolume(ctx, &csipb.DeleteVolumeRequest{VolumeId: pv.Spec.CSI.VolumeHandle})
		return err
	})
	if err != nil {
		d.p.recorder.Eventf(pv, corev1.EventTypeWarning, "VolumeFailedDelete", "deleting volume %s: %v", pv.Name, err)
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	if err := d.p.c.Delete(ctx, pv); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("deleting volume %s: %w", pv.Name, err)
	}
	return ctrl.Result{}, nil
}

// ours tells whether the volume is this driver's and lives on this node.
func (d *deleter) ours(pv *corev1.PersistentVolume) bool {
	if pv.Spec.CSI == nil || pv.Spec.CSI.Driver != csi.DriverName || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return false
	}
	for _, t := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, e := range t.MatchExpressions {
			if e.Key == csi.TopologyKey && len(e.Values) == 1 && e.Values[0] == d.p.cfg.NodeName {
				return true
			}
		}
	}
	return false
}
