package datavolume

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

// SetupWithManager watches DataVolumes, the claims and binder pods they
// own, and the workflows that fill them.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.watcher = workflowstate.NewWatcher(r.Temporal)
	b, err := r.watcher.Into(mgr, ctrl.NewControllerManagedBy(mgr).Named("cdi-datavolume").
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		For(&cdiv1.DataVolume{}).Owns(&corev1.PersistentVolumeClaim{}).Owns(&corev1.Pod{}))
	if err == nil {
		err = b.Complete(r)
	}
	if err != nil {
		return fmt.Errorf("setting up DataVolume controller: %w", err)
	}
	return nil
}
