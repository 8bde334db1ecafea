// Package volumepopulator is CDI's import populator: a claim whose
// dataSourceRef names a VolumeImportSource is filled through a "prime"
// claim of the same shape, which the DataVolume's import workflow fills on
// its node; the prime's volume is then handed over to the claim and the
// prime removed.
package volumepopulator

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Event reasons and messages, as upstream's import populator records them.
const (
	reasonCreatedPrime   = "CreatedPVCPrimeSuccessfully"
	reasonErrCreatePrime = "ErrCreatingPVCPrime"
	reasonRetainedPrime  = "RetainedPVCPrime"
	reasonImportFailed   = "importFailed"
	reasonImportDone     = "importSucceeded"
)

// Reconciler reconciles claims populated from VolumeImportSources.
type Reconciler struct {
	Client    crclient.Client
	Temporal  workflowstate.Client
	TaskQueue string
	Recorder  record.EventRecorder
	// watcher wakes the claim when its workflow moves on; SetupWithManager
	// starts it.
	watcher *workflowstate.Watcher
}

// Reconcile runs the workflow-backed lifecycle for a claim populated from
// a VolumeImportSource: its prime claim is created and bound before the
// import workflow may start, and its volume is handed over after. The
// claim holds no finalizer: the prime goes with it, and its deletion only
// cancels the import.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.lifecycle().Reconcile(ctx, req)
}

// population is what one reconcile gathers to fill a claim: its bound
// prime and its import workflow's progress memo.
type population struct {
	prime    *corev1.PersistentVolumeClaim
	progress cdi.ImportProgress
}

func (r *Reconciler) lifecycle() workflowreconcile.Lifecycle[*corev1.PersistentVolumeClaim, population] {
	return workflowreconcile.Lifecycle[*corev1.PersistentVolumeClaim, population]{
		Objects:   workflowreconcile.Objects{Client: r.Client, Kind: "PersistentVolumeClaim"},
		Workflows: workflowreconcile.Workflows{Temporal: r.Temporal, Watcher: r.watcher, TaskQueue: r.TaskQueue},
		New:       func() *corev1.PersistentVolumeClaim { return &corev1.PersistentVolumeClaim{} },
		Accept: func(_ context.Context, pvc *corev1.PersistentVolumeClaim) (bool, error) {
			return isImportTarget(pvc), nil
		},
		WorkflowID: workflowID,
		Prepare:    r.prepare,
		MemoKey:    cdi.ProgressMemoKey,
		Progress:   func(p *population) any { return &p.progress },
		Start:      r.start,
		Report:     r.report,
	}
}

// prepare creates the prime claim once the target may be populated and
// gets it bound; a prime whose import succeeded is handed over.
func (r *Reconciler) prepare(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (population, *ctrl.Result, error) {
	prime, err := r.prime(ctx, pvc)
	if err != nil {
		return population{}, nil, err
	}
	if prime == nil {
		res, err := r.createPrime(ctx, pvc)
		return population{}, &res, err
	}
	if res, waiting, err := r.awaitPrime(ctx, pvc, prime); waiting || err != nil {
		return population{}, &res, err
	}
	return population{prime: prime}, nil, nil
}

// createPrime creates the claim filled in the target's place, once the
// target may be populated and is not populated yet.
func (r *Reconciler) createPrime(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (ctrl.Result, error) {
	if pvc.Spec.VolumeName != "" {
		// Bound, and its prime is gone: populated.
		return ctrl.Result{}, nil
	}
	src, err := r.source(ctx, pvc)
	if err != nil || src == nil {
		// A missing source wakes the claim when it is created.
		return ctrl.Result{}, err
	}
	ready, node, err := r.readyForPopulation(ctx, pvc)
	if err != nil || !ready {
		return ctrl.Result{}, err
	}
	if err := r.Client.Create(ctx, desiredPrime(pvc, src, node)); err != nil && !apierrors.IsAlreadyExists(err) {
		r.Recorder.Event(pvc, corev1.EventTypeWarning, reasonErrCreatePrime, err.Error())
		return ctrl.Result{}, fmt.Errorf("creating prime claim for PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	r.Recorder.Event(pvc, corev1.EventTypeNormal, reasonCreatedPrime, "PVC Prime created successfully")
	return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
}

// prime reads the target's prime claim; nil when there is none.
func (r *Reconciler) prime(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (*corev1.PersistentVolumeClaim, error) {
	prime := &corev1.PersistentVolumeClaim{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: pvc.Namespace, Name: primeName(pvc)}, prime)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading prime claim of PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	return prime, nil
}

// source reads the VolumeImportSource the claim names; nil when it does
// not exist yet or is meant for another claim.
func (r *Reconciler) source(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (*cdiv1.VolumeImportSource, error) {
	src := &cdiv1.VolumeImportSource{}
	key := types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Spec.DataSourceRef.Name}
	if err := r.Client.Get(ctx, key, src); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading VolumeImportSource %s: %w", key, err)
	}
	if t := src.Spec.TargetClaim; t != nil && *t != "" && *t != pvc.Name {
		return nil, nil
	}
	return src, nil
}
