package evacuation

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Upstream's event reasons on the VMI.
const (
	reasonSuccessfulCreate = "SuccessfulCreate"
	reasonFailedCreate     = "FailedCreate"
	reasonMigrationBackoff = "MigrationBackoff"
)

// migrate creates one migration per VMI, except for VMIs still backing
// off after failed attempts, which are retried once their wait is over.
// Every failed creation is reported on its VMI and returned, so the node
// is retried with the controller's backoff.
func (r *Reconciler) migrate(ctx context.Context, node string, vmis []*kubevirtv1.VirtualMachineInstance, w *world, now time.Time) (ctrl.Result, error) {
	var res ctrl.Result
	var errs []error
	for _, v := range vmis {
		if wait := backoff(w.migrations[v.Namespace+"/"+v.Name], now); wait > 0 {
			r.Recorder.Eventf(v, corev1.EventTypeWarning, reasonMigrationBackoff, "backoff migrating vmi %s/%s", v.Namespace, v.Name)
			res.RequeueAfter = shortest(res.RequeueAfter, wait)
			continue
		}
		mig := newMigration(v, node)
		if err := r.Client.Create(ctx, mig); err != nil {
			r.Recorder.Eventf(v, corev1.EventTypeWarning, reasonFailedCreate, "Error creating a Migration: %v", err)
			errs = append(errs, fmt.Errorf("creating the evacuation migration of %s/%s: %w", v.Namespace, v.Name, err))
			continue
		}
		r.Recorder.Eventf(v, corev1.EventTypeNormal, reasonSuccessfulCreate, "Created Migration %s", mig.Name)
	}
	return res, errors.Join(errs...)
}

// newMigration is upstream's evacuation migration: named by the API
// server, annotated with the node it leaves.
func newMigration(v *kubevirtv1.VirtualMachineInstance, node string) *kubevirtv1.VirtualMachineInstanceMigration {
	return &kubevirtv1.VirtualMachineInstanceMigration{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    v.Namespace,
			GenerateName: "kubevirt-evacuation-",
			Annotations:  map[string]string{kubevirtv1.EvacuationMigrationAnnotation: node},
		},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: v.Name},
	}
}

func shortest(a, b time.Duration) time.Duration {
	if a == 0 {
		return b
	}
	return min(a, b)
}
