package migration

import (
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

// SetupWithManager watches VMIMs and the workflows that move their VMIs.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.watcher = workflowstate.NewWatcher(r.Temporal)
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
