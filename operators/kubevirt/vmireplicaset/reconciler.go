// Package vmireplicaset is virt-controller's VirtualMachineInstanceReplicaSet
// controller: it keeps spec.replicas VMIs from the template running, adopts
// and releases VMIs by the selector, replaces VMIs that finished, and reports
// replicas, readyReplicas, the label selector and the ReplicaFailure and
// ReplicaPaused conditions.
package vmireplicaset

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Event reasons, as upstream's virt-controller records them.
const (
	ReasonSuccessfulCreate  = "SuccessfulCreate"
	ReasonFailedCreate      = "FailedCreate"
	ReasonSuccessfulDelete  = "SuccessfulDelete"
	ReasonFailedDelete      = "FailedDelete"
	ReasonSuccessfulPaused  = "SuccessfulPaused"
	ReasonSuccessfulResumed = "SuccessfulResumed"
)

// BurstReplicas caps the creations or deletions of one sync, as upstream's
// virt-controller does, so a replica set scaled by thousands does not flood
// the API server.
const BurstReplicas = 250

// Reconciler reconciles VirtualMachineInstanceReplicaSets.
type Reconciler struct {
	Client   client.Client
	Recorder record.EventRecorder
	// APIReader lists VMIs and rechecks the replica set before adoption
	// straight from the API server; nil means Client. Upstream counts VMIs
	// from its cache and keeps in-memory expectations of the creations and
	// deletions the cache has not shown yet; reading live gives the same
	// protection against creating or deleting twice with no state kept
	// between reconciles.
	APIReader client.Reader
}

// Reconcile follows upstream's sync: record the observed API version,
// refuse an unusable spec, claim the VMIs, scale, clean up finished VMIs,
// then report status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rs := &kubevirtv1.VirtualMachineInstanceReplicaSet{}
	if err := r.Client.Get(ctx, req.NamespacedName, rs); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// Writing the object once under the latest API version makes the API
	// server store it in that version; the update brings the next sync.
	if rs.Annotations[kubevirtv1.ControllerAPILatestVersionObservedAnnotation] != kubevirtv1.ApiLatestVersion {
		return ctrl.Result{}, r.markAPIVersion(ctx, rs)
	}
	selector, ok := usableSelector(ctx, rs)
	if !ok {
		return ctrl.Result{}, nil
	}
	vmis, err := r.claim(ctx, rs, selector)
	if err != nil {
		return ctrl.Result{}, err
	}
	active, finished := classify(vmis)
	var scaleErr error
	if !rs.Spec.Paused && rs.DeletionTimestamp == nil {
		scaleErr = r.scale(ctx, rs, active)
		if len(finished) > 0 && scaleErr == nil {
			scaleErr = r.cleanFinished(ctx, rs, finished)
		}
	}
	statusErr := r.updateStatus(ctx, rs.DeepCopy(), active, scaleErr)
	if scaleErr != nil {
		if statusErr != nil {
			logf.FromContext(ctx).Error(statusErr, "Updating the replicaset status failed.")
		}
		return ctrl.Result{}, fmt.Errorf("scaling VirtualMachineInstanceReplicaSet %s/%s: %w", rs.Namespace, rs.Name, scaleErr)
	}
	return ctrl.Result{}, statusErr
}

func (r *Reconciler) markAPIVersion(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet) error {
	rs = rs.DeepCopy()
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	rs.Annotations[kubevirtv1.ControllerAPILatestVersionObservedAnnotation] = kubevirtv1.ApiLatestVersion
	rs.Annotations[kubevirtv1.ControllerAPIStorageVersionObservedAnnotation] = kubevirtv1.ApiStorageVersion
	if err := r.Client.Update(ctx, rs); err != nil {
		return fmt.Errorf("recording the observed API version on VirtualMachineInstanceReplicaSet %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	return nil
}

// usableSelector parses the selector. A replica set without template,
// selector or template labels, or whose selector does not match its own
// template, cannot be acted on; another sync would not change that, so it
// is logged with upstream's words and not retried.
func usableSelector(ctx context.Context, rs *kubevirtv1.VirtualMachineInstanceReplicaSet) (labels.Selector, bool) {
	log := logf.FromContext(ctx)
	if rs.Spec.Template == nil || rs.Spec.Selector == nil || len(rs.Spec.Template.ObjectMeta.Labels) == 0 {
		log.Info("Invalid controller spec, will not re-enqueue.")
		return nil, false
	}
	selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		log.Error(err, "Invalid selector on replicaset, will not re-enqueue.")
		return nil, false
	}
	if !selector.Matches(labels.Set(rs.Spec.Template.ObjectMeta.Labels)) {
		log.Info("Selector does not match template labels, will not re-enqueue.")
		return nil, false
	}
	return selector, true
}

// SetupWithManager watches replica sets and every VMI: an owned VMI wakes
// its owner, an orphan wakes each replica set whose selector matches it so
// it can be adopted. Several workers, as for VMs, so one slow replica set
// does not hold up the others.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("virtualmachineinstancereplicaset").
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		For(&kubevirtv1.VirtualMachineInstanceReplicaSet{}).
		Watches(&kubevirtv1.VirtualMachineInstance{}, handler.EnqueueRequestsFromMapFunc(r.replicaSetsFor)).
		Complete(r)
}

// replicaSetsFor maps a VMI to the replica sets that care about it. On an
// update it is called for the old and the new VMI, so a changed owner or
// changed labels wake both sides.
func (r *Reconciler) replicaSetsFor(ctx context.Context, obj client.Object) []reconcile.Request {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		if ref.Kind != kubevirtv1.VirtualMachineInstanceReplicaSetGroupVersionKind.Kind {
			return nil
		}
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}}}
	}
	list := &kubevirtv1.VirtualMachineInstanceReplicaSetList{}
	if err := r.Client.List(ctx, list, client.InNamespace(obj.GetNamespace())); err != nil {
		logf.FromContext(ctx).Error(err, "listing VirtualMachineInstanceReplicaSets for an orphaned VMI", "vmi", obj.GetName())
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		rs := &list.Items[i]
		selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil || rs.Spec.Selector == nil || !selector.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(rs)})
	}
	return reqs
}

func (r *Reconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}
