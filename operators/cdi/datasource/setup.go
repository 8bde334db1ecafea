package datasource

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

// pvcSourceIndex indexes DataSources by the namespace/name of their PVC
// source, so a claim's or DataVolume's change finds the DataSources that
// name it, in any namespace.
const pvcSourceIndex = "virtflow.spec.source.pvc"

func pvcSourceKey(obj client.Object) []string {
	ds, ok := obj.(*cdiv1.DataSource)
	if !ok || ds.Spec.Source.PVC == nil {
		return nil
	}
	return []string{ds.Spec.Source.PVC.Namespace + "/" + ds.Spec.Source.PVC.Name}
}

// SetupWithManager watches DataSources and the claims and DataVolumes they
// name.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &cdiv1.DataSource{}, pvcSourceIndex, pvcSourceKey); err != nil {
		return fmt.Errorf("indexing DataSources by PVC source: %w", err)
	}
	naming := handler.EnqueueRequestsFromMapFunc(r.dataSourcesNaming)
	err := ctrl.NewControllerManagedBy(mgr).Named("cdi-datasource").
		For(&cdiv1.DataSource{}).
		Watches(&corev1.PersistentVolumeClaim{}, naming).
		Watches(&cdiv1.DataVolume{}, naming).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up DataSource controller: %w", err)
	}
	return nil
}

// dataSourcesNaming maps a claim or DataVolume to the DataSources whose
// PVC source has its namespace and name.
func (r *Reconciler) dataSourcesNaming(ctx context.Context, obj client.Object) []ctrl.Request {
	list := &cdiv1.DataSourceList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{pvcSourceIndex: obj.GetNamespace() + "/" + obj.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing DataSources naming a claim", "claim", obj.GetNamespace()+"/"+obj.GetName())
		return nil
	}
	reqs := make([]ctrl.Request, 0, len(list.Items))
	for _, ds := range list.Items {
		reqs = append(reqs, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&ds)})
	}
	return reqs
}
