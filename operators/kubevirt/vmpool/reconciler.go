// Package vmpool is virt-controller's VirtualMachinePool controller: it keeps
// spec.replicas VirtualMachines named <pool>-<index> built from the pool's
// template, rolls template changes out to them, replaces failing ones and
// reports replicas, readyReplicas and the ReplicaFailure/ReplicaPaused
// conditions, as upstream KubeVirt's pool controller does.
package vmpool

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Reconciler reconciles VirtualMachinePools.
type Reconciler struct {
	Client client.Client
	// Reader reads the namespace's VMs, VMIs, revisions, claims and
	// DataVolumes. It should be uncached: upstream gates each step on
	// in-memory expectations so that a lagging cache cannot make it
	// create or delete twice; reading live needs no memory between
	// reconciles. Nil reads through Client.
	Reader   client.Reader
	Recorder record.EventRecorder
}

// burstReplicas caps the VMs created or deleted in one reconcile, as
// upstream's virt-controller does.
const burstReplicas = 250

// Reconcile mirrors upstream's sync: release VMs that left the selector,
// heal failing ones, keep the pool finalizer, then scale, update and prune
// revisions in that order, each only once the step before is stable, and
// report status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pool := &poolv1.VirtualMachinePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, pool); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	selector, ok := usableSelector(ctx, pool)
	if !ok {
		return ctrl.Result{}, nil
	}
	s := &syncer{r: r, ctx: ctx, pool: pool, selector: selector}
	vms, err := s.ownedVMs()
	if err != nil {
		return ctrl.Result{}, err
	}
	healed, healWait, err := s.autoheal(vms)
	if err != nil {
		return ctrl.Result{}, err
	}
	if pool.DeletionTimestamp == nil {
		if err := s.addPoolFinalizer(); err != nil {
			return ctrl.Result{}, err
		}
	}
	res, syncErr, err := s.sync(vms, healed)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := s.updateStatus(vms, syncErr); err != nil {
		return ctrl.Result{}, err
	}
	if syncErr != nil {
		return ctrl.Result{}, syncErr
	}
	if healWait > 0 && (res.RequeueAfter == 0 || healWait < res.RequeueAfter) {
		res.RequeueAfter = healWait
	}
	return res, nil
}

// sync runs the steps upstream gates on satisfied expectations. A pool
// that just had VMs healed waits for their deletion to be seen, as
// upstream's expectations make it wait.
func (s *syncer) sync(vms []*kubevirtv1.VirtualMachine, healed bool) (ctrl.Result, *syncError, error) {
	if s.pool.DeletionTimestamp != nil {
		if err := s.handleDeletion(); err != nil {
			return ctrl.Result{}, nil, err
		}
		return ctrl.Result{}, s.pruneRevisions(vms), nil
	}
	if s.pool.Spec.Paused || healed {
		return ctrl.Result{}, nil, nil
	}
	stable, syncErr := s.scale(vms)
	if syncErr != nil || !stable {
		return ctrl.Result{}, syncErr, nil
	}
	res, updated, syncErr := s.update(vms)
	if syncErr != nil || !updated {
		return res, syncErr, nil
	}
	return res, s.pruneRevisions(vms), nil
}

// usableSelector is the pool's selector when it selects the pool's own
// template; otherwise the pool is left alone until its spec changes, as
// upstream does (admission refuses such pools anyway).
func usableSelector(ctx context.Context, pool *poolv1.VirtualMachinePool) (labels.Selector, bool) {
	log := logf.FromContext(ctx)
	selector, err := metav1.LabelSelectorAsSelector(pool.Spec.Selector)
	if err != nil {
		log.Error(err, "Invalid selector on pool, will not re-enqueue.")
		return nil, false
	}
	if pool.Spec.VirtualMachineTemplate == nil || !selector.Matches(labels.Set(pool.Spec.VirtualMachineTemplate.ObjectMeta.Labels)) {
		log.Info("Selector does not match template labels, will not re-enqueue.")
		return nil, false
	}
	return selector, true
}

// syncer holds one reconcile's pool and what it has read; nothing in it
// outlives the reconcile.
type syncer struct {
	r        *Reconciler
	ctx      context.Context
	pool     *poolv1.VirtualMachinePool
	selector labels.Selector
	// taken holds every VM name in the namespace, whoever owns the VM.
	taken map[string]bool
	vmis  map[string]*kubevirtv1.VirtualMachineInstance
	revs  map[string]*poolv1.VirtualMachinePoolSpec
}

func (r *Reconciler) reader() client.Reader {
	if r.Reader != nil {
		return r.Reader
	}
	return r.Client
}

// syncError is a failed step, with the reason its ReplicaFailure condition
// and event carry.
type syncError struct {
	reason string
	err    error
}

func (e *syncError) Error() string { return e.err.Error() }
func (e *syncError) Unwrap() error { return e.err }

func failed(reason, format string, err error) *syncError {
	return &syncError{reason: reason, err: fmt.Errorf(format, err)}
}

// Upstream's reasons for a failed step.
const (
	reasonFailedScaleOut        = "FailedScaleOut"
	reasonFailedScaleIn         = "FailedScaleIn"
	reasonFailedUpdate          = "FailedUpdate"
	reasonFailedRevisionPruning = "FailedRevisionPruning"
)

// retryDelay is how soon a proactive update held back by maxUnavailable
// looks again.
const retryDelay = 3 * time.Second

// ownedVMs lists the namespace's VMs, remembers every name for index
// allocation, and returns the ones this pool controls and still selects.
// A VM that left the selector is released; the pool never adopts.
func (s *syncer) ownedVMs() ([]*kubevirtv1.VirtualMachine, error) {
	list := &kubevirtv1.VirtualMachineList{}
	if err := s.r.reader().List(s.ctx, list, client.InNamespace(s.pool.Namespace)); err != nil {
		return nil, fmt.Errorf("listing VirtualMachines in %s: %w", s.pool.Namespace, err)
	}
	s.taken = map[string]bool{}
	var owned []*kubevirtv1.VirtualMachine
	for i := range list.Items {
		vm := &list.Items[i]
		s.taken[vm.Name] = true
		if ref := metav1.GetControllerOf(vm); ref == nil || ref.UID != s.pool.UID {
			continue
		}
		if s.selector.Matches(labels.Set(vm.Labels)) {
			owned = append(owned, vm)
			continue
		}
		if s.pool.DeletionTimestamp == nil {
			if err := s.release(vm); err != nil {
				return nil, err
			}
		}
	}
	return owned, nil
}

// release frees a VM whose labels no longer match: its pool owner
// reference and pool finalizer go, everything else stays. Upstream drops
// every owner reference and writes the remaining finalizers in a form
// that is not JSON; this keeps other owners and writes a valid patch.
func (s *syncer) release(vm *kubevirtv1.VirtualMachine) error {
	base := vm.DeepCopy()
	var refs []metav1.OwnerReference
	for _, ref := range vm.OwnerReferences {
		if ref.UID != s.pool.UID {
			refs = append(refs, ref)
		}
	}
	vm.OwnerReferences = refs
	vm.Finalizers = without(vm.Finalizers, poolv1.VirtualMachinePoolControllerFinalizer)
	err := s.r.Client.Patch(s.ctx, vm, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
		return fmt.Errorf("releasing VirtualMachine %s/%s from pool %s: %w", vm.Namespace, vm.Name, s.pool.Name, err)
	}
	return nil
}

func without(list []string, item string) []string {
	out := []string{}
	for _, v := range list {
		if v != item {
			out = append(out, v)
		}
	}
	return out
}
