// Package datavolume is CDI's DataVolume controller: it creates the
// DataVolume's claim, gets it bound (honouring WaitForFirstConsumer), starts
// the import workflow on the volume's node and mirrors the workflow's state
// and progress into the DataVolume's phase, progress and conditions.
package datavolume

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// Finalizer keeps a DataVolume until its import workflow has stopped and
// cleaned up.
const Finalizer = "cdi.kubevirt.io/dataVolumeFinalizer"

// isUpload tells whether the DataVolume waits for an upload.
func isUpload(dv *cdiv1.DataVolume) bool {
	return dv.Spec.Source != nil && dv.Spec.Source.Upload != nil
}

// workflowOf is the ID and type of the workflow that fills the DataVolume.
func workflowOf(dv *cdiv1.DataVolume) (id, typ string) {
	if isClone(dv) {
		return cdi.CloneWorkflowID(string(dv.UID)), cdi.CloneWorkflowName
	}
	if isUpload(dv) {
		return cdi.UploadWorkflowID(string(dv.UID)), cdi.UploadWorkflowName
	}
	return cdi.ImportWorkflowID(string(dv.UID)), cdi.ImportWorkflowName
}

// Reconciler reconciles DataVolumes.
type Reconciler struct {
	Client    crclient.Client
	Temporal  workflowstate.Client
	TaskQueue string
	Recorder  record.EventRecorder
	// watcher wakes the reconciler when a DataVolume's workflow moves on;
	// SetupWithManager starts it.
	watcher *workflowstate.Watcher
}

// Reconcile follows the model reconciler: get, deletion, finalizer, claim,
// binding, describe, start if absent, map to status, patch once, requeue.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	dv := &cdiv1.DataVolume{}
	if err := r.Client.Get(ctx, req.NamespacedName, dv); err != nil {
		return ctrl.Result{}, crclient.IgnoreNotFound(err)
	}
	if dv.DeletionTimestamp != nil {
		return r.finalize(ctx, dv)
	}
	if controllerutil.AddFinalizer(dv, Finalizer) {
		if err := r.Client.Update(ctx, dv); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer to DataVolume %s/%s: %w", dv.Namespace, dv.Name, err)
		}
	}
	if dv.Status.Phase == cdiv1.Succeeded {
		// Filled: what it was filled from (a clone's source, a
		// DataSource) may change or go away without touching it.
		return ctrl.Result{}, nil
	}
	src, notReady, err := r.cloneSource(ctx, dv)
	if err != nil {
		return ctrl.Result{}, err
	}
	if notReady != "" {
		return ctrl.Result{RequeueAfter: 2 * time.Second}, r.writeStatus(ctx, dv, sourceNotReady(dv, notReady))
	}
	cl, err := r.ensureClaim(ctx, dv, src.size)
	if err != nil {
		return ctrl.Result{RequeueAfter: 5 * time.Second}, r.writeStatus(ctx, dv, failedClaim(dv, err))
	}
	if cl.pvc.Status.Phase != corev1.ClaimBound {
		st, err := r.awaitBinding(ctx, dv, cl.pvc, src)
		if err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: 2 * time.Second}, r.writeStatus(ctx, dv, st)
	}
	if err := r.deleteBinder(ctx, dv); err != nil {
		return ctrl.Result{}, err
	}
	st, err := r.importState(ctx, dv, cl, src)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.writeStatus(ctx, dv, st); err != nil {
		return ctrl.Result{}, err
	}
	if st.Phase == cdiv1.Succeeded || st.Phase == cdiv1.Failed {
		return ctrl.Result{}, nil
	}
	return r.waitFor(), nil
}

// watch has the watcher wake the DataVolume on its running workflow's
// next event.
func (r *Reconciler) watch(id string, state workflowstate.State, dv *cdiv1.DataVolume) {
	if r.watcher != nil && state.Phase == workflowstate.Running {
		r.watcher.Watch(id, state.HistoryLength, dv)
	}
}

// waitFor leaves a running DataVolume until something wakes it: its
// workflow's next event (the watcher), a note on its claim (the claim
// watch), or the safety resync.
func (r *Reconciler) waitFor() ctrl.Result {
	return ctrl.Result{RequeueAfter: workflowstate.Resync}
}

// awaitBinding reports an unbound claim and, where the DataVolume asked for
// immediate binding of a WaitForFirstConsumer claim, lets the scheduler
// pick its node.
//
// A clone binds at once, next to its source.
func (r *Reconciler) awaitBinding(ctx context.Context, dv *cdiv1.DataVolume, pvc *corev1.PersistentVolumeClaim, src cloneSrc) (cdiv1.DataVolumeStatus, error) {
	wffc, immediate, err := r.waitsForConsumer(ctx, dv, pvc)
	if err != nil {
		return cdiv1.DataVolumeStatus{}, err
	}
	immediate = immediate || isClone(dv)
	if wffc && immediate {
		if err := r.ensureBinder(ctx, dv, src.affinity); err != nil {
			return cdiv1.DataVolumeStatus{}, err
		}
	}
	phase := cdiv1.Pending
	if wffc && !immediate {
		phase = cdiv1.WaitForFirstConsumer
	}
	return pendingStatus(dv, phase), nil
}

// importState describes the import workflow, starting it if it does not
// exist yet, and maps it to the DataVolume's status.
func (r *Reconciler) importState(ctx context.Context, dv *cdiv1.DataVolume, cl claim, src cloneSrc) (cdiv1.DataVolumeStatus, error) {
	id, _ := workflowOf(dv)
	state, err := workflowstate.Describe(ctx, r.Temporal, id, "", nil)
	if err != nil {
		return cdiv1.DataVolumeStatus{}, err
	}
	if state.Phase == workflowstate.NotFound {
		if dv.Status.Phase == cdiv1.Succeeded {
			// The workflow's history was retired; the disk stays done.
			return dv.Status, nil
		}
		if err := r.start(ctx, dv, cl, src); err != nil {
			return cdiv1.DataVolumeStatus{}, err
		}
		state.Phase = workflowstate.Running
	}
	r.watch(id, state, dv)
	return importStatus(dv, cl.pvc, state), nil
}

// start starts the workflow that fills the claim on its node.
func (r *Reconciler) start(ctx context.Context, dv *cdiv1.DataVolume, cl claim, src cloneSrc) error {
	t, err := r.target(ctx, cl.pvc)
	if err != nil {
		return err
	}
	in, err := r.workflowInput(ctx, dv, cl, t, src)
	if err != nil {
		return err
	}
	id, typ := workflowOf(dv)
	opts := client.StartWorkflowOptions{
		ID: id, TaskQueue: r.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	if _, err := r.Temporal.ExecuteWorkflow(ctx, opts, typ, in); err != nil {
		return fmt.Errorf("starting workflow %s for DataVolume %s/%s: %w", typ, dv.Namespace, dv.Name, err)
	}
	r.Recorder.Eventf(dv, corev1.EventTypeNormal, scheduledReason(dv), "%s into %s scheduled on node %s (workflow %s)", typ, dv.Name, t.node, opts.ID)
	return nil
}

// workflowInput is the import, upload or clone workflow's input.
func (r *Reconciler) workflowInput(ctx context.Context, dv *cdiv1.DataVolume, cl claim, t target, src cloneSrc) (any, error) {
	name := dv.Namespace + "/" + dv.Name
	if isClone(dv) {
		if src.node != t.node {
			return nil, fmt.Errorf("clone source is on node %s and the target on %s: cross-node clone is not supported yet", src.node, t.node)
		}
		req := cdi.CloneRequest{SourceDir: src.dir, VolumeDir: t.dir, Size: cl.usable, Key: string(dv.UID),
			Namespace: dv.Namespace, Claim: cl.pvc.Name}
		return cdi.CloneInput{DataVolume: name, Node: t.node, Request: req}, nil
	}
	ref, err := r.sourceRef(ctx, dv)
	if err != nil {
		return nil, err
	}
	req := cdi.ImportRequest{Namespace: dv.Namespace, Claim: cl.pvc.Name, VolumeDir: t.dir, Size: cl.usable, Key: string(dv.UID),
		Source: ref, Blank: dv.Spec.Source.Blank != nil, StallTimeout: stallTimeout(dv)}
	return cdi.ImportInput{DataVolume: name, Node: t.node, Request: req}, nil
}

// finalize cancels a running import and waits for it to clean up, so a
// deleted DataVolume leaves no partial disk or scratch files behind.
func (r *Reconciler) finalize(ctx context.Context, dv *cdiv1.DataVolume) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(dv, Finalizer) {
		return ctrl.Result{}, nil
	}
	id, _ := workflowOf(dv)
	state, err := workflowstate.Describe(ctx, r.Temporal, id, "", nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	if state.Phase == workflowstate.Running {
		if err := r.Temporal.CancelWorkflow(ctx, id, ""); err != nil {
			return ctrl.Result{}, fmt.Errorf("cancelling import workflow %s: %w", id, err)
		}
		r.watch(id, state, dv)
		return r.waitFor(), nil
	}
	if err := r.deleteBinder(ctx, dv); err != nil {
		return ctrl.Result{}, err
	}
	forgetProgress(dv)
	controllerutil.RemoveFinalizer(dv, Finalizer)
	if err := r.Client.Update(ctx, dv); err != nil {
		return ctrl.Result{}, fmt.Errorf("removing finalizer from DataVolume %s/%s: %w", dv.Namespace, dv.Name, err)
	}
	return ctrl.Result{}, nil
}
