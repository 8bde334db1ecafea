package hyperconverged

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operands"
)

// SetupWithManager watches HyperConverged and every component kind, so an
// edit to a component is reverted within one reconcile, and the nodes, so
// a worker added, removed or relabelled shows in
// status.infrastructureHighlyAvailable. Upstream counts nodes in a
// controller of their own that signals the HyperConverged's; here the
// node events enqueue the HyperConverged, which counts them itself.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toHC := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, obj client.Object) []reconcile.Request {
		return r.owners(ctx, obj)
	})
	managed := builder.WithPredicates(predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return obj.GetLabels()[operands.LabelManagedBy] == operands.ManagedByValue
	}))
	r.watcher = workflowstate.NewWatcher(r.Temporal)
	b, err := r.watcher.Into(mgr, ctrl.NewControllerManagedBy(mgr).Named("hyperconverged").For(&hcov1beta1.HyperConverged{}))
	if err != nil {
		return err
	}
	return b.
		Watches(&kubevirtv1.KubeVirt{}, toHC, managed).
		Watches(&cdiv1beta1.CDI{}, toHC, managed).
		Watches(&sspv1beta3.SSP{}, toHC, managed).
		Watches(&nacv1.NetworkAddonsConfig{}, toHC, managed).
		Watches(&hppv1beta1.HostPathProvisioner{}, toHC, managed).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.theHyperConverged), builder.WithPredicates(workerCountChanged())).
		Complete(r)
}

// owners maps a component event to the HyperConverged(s) it belongs to; the
// app label holds the HyperConverged's name.
func (r *Reconciler) owners(ctx context.Context, obj client.Object) []reconcile.Request {
	list := &hcov1beta1.HyperConvergedList{}
	if err := r.Client.List(ctx, list); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, hc := range list.Items {
		if obj.GetLabels()[operands.LabelApp] == hc.Name {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: hc.Namespace, Name: hc.Name}})
		}
	}
	return reqs
}
