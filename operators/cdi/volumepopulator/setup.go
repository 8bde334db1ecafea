package volumepopulator

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

// SetupWithManager watches claims populated from VolumeImportSources, the
// prime claims they own, the sources they name and the workflows that
// fill them.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.watcher = workflowstate.NewWatcher(r.Temporal)
	targets := predicate.NewPredicateFuncs(func(o crclient.Object) bool {
		pvc, ok := o.(*corev1.PersistentVolumeClaim)
		return ok && isImportTarget(pvc)
	})
	b, err := r.watcher.Into(mgr, ctrl.NewControllerManagedBy(mgr).Named("cdi-import-populator").
		WithOptions(controller.Options{MaxConcurrentReconciles: 3}).
		For(&corev1.PersistentVolumeClaim{}, builder.WithPredicates(targets)).
		Owns(&corev1.PersistentVolumeClaim{}).
		Watches(&cdiv1.VolumeImportSource{}, handler.EnqueueRequestsFromMapFunc(r.claimsOf)))
	if err == nil {
		err = b.Complete(r)
	}
	if err != nil {
		return fmt.Errorf("setting up the import populator: %w", err)
	}
	return nil
}

// claimsOf are the claims in the source's namespace that name it.
func (r *Reconciler) claimsOf(ctx context.Context, src crclient.Object) []reconcile.Request {
	var list corev1.PersistentVolumeClaimList
	if err := r.Client.List(ctx, &list, crclient.InNamespace(src.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		pvc := &list.Items[i]
		if isImportTarget(pvc) && pvc.Spec.DataSourceRef.Name == src.GetName() {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}})
		}
	}
	return out
}
