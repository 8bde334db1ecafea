package evacuation

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// SetupWithManager indexes VMIs by node and wakes a node when it changes
// (its drain taint), when one of its VMIs is marked or changes, and when
// a migration of a marked VMI does
// (one ending is what lets the next start, or is retried).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	ctx := context.Background()
	err := mgr.GetFieldIndexer().IndexField(ctx, &kubevirtv1.VirtualMachineInstance{}, nodeNameIndex, vmiNode)
	if err != nil {
		return fmt.Errorf("indexing VMIs by node: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).Named("evacuation").
		Watches(&kubevirtv1.VirtualMachineInstance{}, handler.EnqueueRequestsFromMapFunc(markedNode)).
		Watches(&kubevirtv1.VirtualMachineInstanceMigration{}, handler.EnqueueRequestsFromMapFunc(r.migrationNode)).
		// A node tainted for draining, or untainted, is looked at again.
		Watches(&corev1.Node{}, &handler.EnqueueRequestForObject{}).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the evacuation controller: %w", err)
	}
	return nil
}

func vmiNode(obj client.Object) []string {
	if v, ok := obj.(*kubevirtv1.VirtualMachineInstance); ok && v.Status.NodeName != "" {
		return []string{v.Status.NodeName}
	}
	return nil
}

// markedNode is the node a VMI is marked to leave.
func markedNode(_ context.Context, obj client.Object) []reconcile.Request {
	v, ok := obj.(*kubevirtv1.VirtualMachineInstance)
	if !ok || v.Status.EvacuationNodeName == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: v.Status.EvacuationNodeName}}}
}

// migrationNode is the node the migration's VMI is marked to leave; a VMI
// that cannot be read is no evacuation's.
func (r *Reconciler) migrationNode(ctx context.Context, obj client.Object) []reconcile.Request {
	m, ok := obj.(*kubevirtv1.VirtualMachineInstanceMigration)
	if !ok {
		return nil
	}
	v := &kubevirtv1.VirtualMachineInstance{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Spec.VMIName}, v); err != nil {
		if !apierrors.IsNotFound(err) {
			logf.FromContext(ctx).Error(err, "reading the VMI of migration", "migration", m.Namespace+"/"+m.Name)
		}
		return nil
	}
	return markedNode(ctx, v)
}
