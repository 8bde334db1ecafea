// Package evacuation is virt-controller's evacuation controller, as
// upstream's: the VMIs an eviction marked (status.evacuationNodeName, set
// by virt-api's eviction interceptor) are moved off their node by
// VirtualMachineInstanceMigrations it creates, within the cluster's
// parallel migration limits, so a drain completes once they have left.
// A node carrying the drain taint (upstream's deprecated
// nodeDrainTaintKey, kubevirt.io/drain:NoSchedule) has all its VMIs
// evacuated the same way.
package evacuation

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Upstream's re-queue times: while the limits leave no room, and while
// only VMIs that cannot move are waiting.
const (
	noRoomRequeue   = 5 * time.Second
	stuckVMIRequeue = time.Minute
)

// nodeNameIndex indexes VMIs by status.nodeName.
const nodeNameIndex = "status.nodeName"

// Reconciler evacuates one node per request (the request's name).
type Reconciler struct {
	// Client reads VMIs, pods and the KubeVirt CR from the cache and
	// creates migrations.
	Client client.Client
	// Reader lists migrations uncached, so one just created is counted
	// and never created twice.
	Reader   client.Reader
	Recorder record.EventRecorder
	// Now is the clock; nil is the wall clock.
	Now func() time.Time
}

// Reconcile starts migrations for the node's marked VMIs the limits leave
// room for.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	node, now := req.Name, r.now()
	vmis := &kubevirtv1.VirtualMachineInstanceList{}
	if err := r.Client.List(ctx, vmis, client.MatchingFields{nodeNameIndex: node}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the VMIs on node %s: %w", node, err)
	}
	cfg, err := r.config(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	wanted, err := r.wanted(ctx, node, cfg, vmis.Items, now)
	if err != nil || len(wanted) == 0 {
		return ctrl.Result{}, err
	}
	w, err := r.world(ctx, wanted)
	if err != nil {
		return ctrl.Result{}, err
	}
	movable, stuck := split(wanted, cfg, w)
	if len(movable) == 0 && len(stuck) == 0 {
		return ctrl.Result{}, nil
	}
	room := free(node, cfg, vmis.Items, w)
	if room <= 0 {
		return ctrl.Result{RequeueAfter: noRoomRequeue}, nil
	}
	take := min(room, len(movable))
	for _, v := range stuck[:min(room-take, len(stuck))] {
		r.Recorder.Event(v, corev1.EventTypeNormal, reasonFailedCreate, "VirtualMachineInstance is not migrateable")
	}
	if take == 0 {
		if room > 0 && len(stuck) > 0 {
			return ctrl.Result{RequeueAfter: stuckVMIRequeue}, nil
		}
		return ctrl.Result{}, nil
	}
	return r.migrate(ctx, node, movable[:take], w, now)
}

// wanted are the VMIs to move off node: all of them while it carries the
// drain taint, else those an eviction marked.
func (r *Reconciler) wanted(ctx context.Context, node string, cfg clusterConfig, vmis []kubevirtv1.VirtualMachineInstance,
	now time.Time) ([]*kubevirtv1.VirtualMachineInstance, error) {
	n := &corev1.Node{}
	err := r.Client.Get(ctx, client.ObjectKey{Name: node}, n)
	if client.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("reading node %s: %w", node, err)
	}
	if err == nil && DrainTainted(n, cfg.drainTaint) {
		return onNode(node, vmis, now), nil
	}
	return marked(node, vmis, now), nil
}

// config is the KubeVirt CR's, upstream's defaults when there is none.
func (r *Reconciler) config(ctx context.Context) (clusterConfig, error) {
	kvs := &kubevirtv1.KubeVirtList{}
	if err := r.Client.List(ctx, kvs); err != nil {
		return clusterConfig{}, fmt.Errorf("reading the KubeVirt configuration: %w", err)
	}
	if len(kvs.Items) == 0 {
		return configOf(nil), nil
	}
	return configOf(&kvs.Items[0]), nil
}

// world gathers every migration and the marked VMIs' live launcher pods.
func (r *Reconciler) world(ctx context.Context, vmis []*kubevirtv1.VirtualMachineInstance) (*world, error) {
	migs := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	if err := r.Reader.List(ctx, migs); err != nil {
		return nil, fmt.Errorf("listing the migrations: %w", err)
	}
	w := &world{migrations: map[string][]kubevirtv1.VirtualMachineInstanceMigration{}, activePods: map[types.UID]int{}}
	for _, m := range migs.Items {
		key := m.Namespace + "/" + m.Spec.VMIName
		w.migrations[key] = append(w.migrations[key], m)
	}
	for _, v := range vmis {
		pods := &corev1.PodList{}
		if err := r.Client.List(ctx, pods, client.InNamespace(v.Namespace), client.MatchingLabels{kubevirtv1.CreatedByLabel: string(v.UID)}); err != nil {
			return nil, fmt.Errorf("listing the launcher pods of %s/%s: %w", v.Namespace, v.Name, err)
		}
		for i := range pods.Items {
			if podAlive(&pods.Items[i]) {
				w.activePods[v.UID]++
			}
		}
	}
	return w, nil
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
