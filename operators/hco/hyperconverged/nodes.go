package hyperconverged

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// LabelNodeRoleWorker marks a worker node. HCO counts the nodes that
// carry it, whatever its value and whatever other roles the node has, so
// a compact cluster's schedulable control-plane nodes count when they are
// labelled workers too.
const LabelNodeRoleWorker = "node-role.kubernetes.io/worker"

// minWorkersForHA is how many workers make the infrastructure highly
// available: one more than a node being drained leaves somewhere to go.
const minWorkersForHA = 2

// infrastructureHighlyAvailable tells whether nodes hold at least two
// workers, as HCO's nodeinfo does; control-plane-only nodes run no VMs and
// do not count.
func infrastructureHighlyAvailable(nodes []corev1.Node) bool {
	workers := 0
	for _, n := range nodes {
		if isWorker(&n) {
			workers++
		}
	}
	return workers >= minWorkersForHA
}

func isWorker(n client.Object) bool {
	_, ok := n.GetLabels()[LabelNodeRoleWorker]
	return ok
}

// readHighlyAvailable lists the nodes from the manager's cache, which the
// node watch keeps, and counts their workers.
func (r *Reconciler) readHighlyAvailable(ctx context.Context) (bool, error) {
	nodes := &corev1.NodeList{}
	if err := r.Client.List(ctx, nodes); err != nil {
		return false, fmt.Errorf("listing nodes to tell whether the infrastructure is highly available: %w", err)
	}
	return infrastructureHighlyAvailable(nodes.Items), nil
}

// noteHighlyAvailable records the measure in status, saying so in the log
// when it changes, as HCO does.
func noteHighlyAvailable(ctx context.Context, hc *hcov1beta1.HyperConverged, highlyAvailable bool) {
	if was := hc.Status.InfrastructureHighlyAvailable; was != nil && *was == highlyAvailable {
		return
	}
	if highlyAvailable {
		log.FromContext(ctx).Info("infrastructure became highly available")
	} else {
		log.FromContext(ctx).Info("infrastructure became not highly available")
	}
	hc.Status.InfrastructureHighlyAvailable = &highlyAvailable
}

// theHyperConverged maps a node event to the one HyperConverged the
// operator acts on; a HyperConverged that is not there is ignored by the
// reconcile it wakes.
func (r *Reconciler) theHyperConverged(context.Context, client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: r.Namespace, Name: hcov1beta1.HyperConvergedName}}}
}

// workerCountChanged passes the node events that can change the number of
// workers: a node added or removed, or its worker label added or removed.
// Status updates (heartbeats, capacity) never pass, so the HyperConverged
// is not reconciled on every one.
func workerCountChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return true },
		DeleteFunc: func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return isWorker(e.ObjectOld) != isWorker(e.ObjectNew)
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
