package migration

import (
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

// SetupWithManager watches VMIMs and the workflows that move their VMIs,
// and exports upstream's migration metrics.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.watcher = workflowstate.NewWatcher(r.Temporal)
	if err := metrics.Registry.Register(Collector{Reader: mgr.GetClient()}); err != nil {
		return fmt.Errorf("registering the migration metrics: %w", err)
	}
	b, err := r.watcher.Into(mgr, ctrl.NewControllerManagedBy(mgr).Named("virtualmachineinstancemigration").
		WithOptions(controller.Options{MaxConcurrentReconciles: 3}).
		For(&kubevirtv1.VirtualMachineInstanceMigration{}))
	if err == nil {
		err = b.Complete(r)
	}
	if err != nil {
		return fmt.Errorf("setting up the VirtualMachineInstanceMigration controller: %w", err)
	}
	return nil
}
