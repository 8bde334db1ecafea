package vmpool

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// SetupWithManager watches pools, the VMs they own (readiness, deletion)
// and those VMs' VMIs (an update restarts or relabels them). Revisions are
// read live, so they need no watch.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Reader == nil {
		r.Reader = mgr.GetAPIReader()
	}
	return ctrl.NewControllerManagedBy(mgr).Named("virtualmachinepool").
		WithOptions(controller.Options{MaxConcurrentReconciles: 2}).
		For(&poolv1.VirtualMachinePool{}).
		Owns(&kubevirtv1.VirtualMachine{}).
		Watches(&kubevirtv1.VirtualMachineInstance{}, handler.EnqueueRequestsFromMapFunc(r.poolOfVMI)).
		Complete(r)
}

// poolOfVMI maps a VMI to the pool controlling its VM, if any.
func (r *Reconciler) poolOfVMI(ctx context.Context, obj client.Object) []reconcile.Request {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != "VirtualMachine" {
		return nil
	}
	vm := &kubevirtv1.VirtualMachine{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}, vm); err != nil {
		return nil
	}
	owner := metav1.GetControllerOf(vm)
	if owner == nil || owner.Kind != poolv1.VirtualMachinePoolKind || !strings.HasPrefix(owner.APIVersion, poolv1.SchemeGroupVersion.Group+"/") {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: vm.Namespace, Name: owner.Name}}}
}
