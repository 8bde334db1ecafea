// Package datavolume is CDI's DataVolume controller: it creates the
// DataVolume's claim, gets it bound (honouring WaitForFirstConsumer), starts
// the import workflow on the volume's node and mirrors the workflow's state
// and progress into the DataVolume's phase, progress and conditions.
package datavolume

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
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

// Reconcile runs the workflow-backed lifecycle: the claim is created and
// bound before the workflow that fills it may start.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.lifecycle().Reconcile(ctx, req)
}

// filling is what one reconcile gathers to fill a DataVolume: its bound
// claim, a clone's source, the node a workflow it starts runs on, and the
// workflow's progress memo.
type filling struct {
	claim    claim
	src      cloneSrc
	node     string
	progress cdi.ImportProgress
}

func (r *Reconciler) lifecycle() workflowreconcile.Lifecycle[*cdiv1.DataVolume, filling] {
	return workflowreconcile.Lifecycle[*cdiv1.DataVolume, filling]{
		Objects:   workflowreconcile.Objects{Client: r.Client, Kind: "DataVolume", Finalizer: Finalizer},
		Workflows: workflowreconcile.Workflows{Temporal: r.Temporal, Watcher: r.watcher, TaskQueue: r.TaskQueue},
		New:       func() *cdiv1.DataVolume { return &cdiv1.DataVolume{} },
		WorkflowID: func(dv *cdiv1.DataVolume) string {
			id, _ := workflowOf(dv)
			return id
		},
		Prepare:  r.prepare,
		MemoKey:  cdi.ProgressMemoKey,
		Progress: func(f *filling) any { return &f.progress },
		Start:    r.start,
		Report:   r.report,
		Finalize: r.release,
	}
}

// prepare gets a clone's source ready and the claim created and bound;
// until then the DataVolume reports what it waits for.
func (r *Reconciler) prepare(ctx context.Context, dv *cdiv1.DataVolume) (filling, *ctrl.Result, error) {
	if dv.Status.Phase == cdiv1.Succeeded {
		// Filled: what it was filled from (a clone's source, a
		// DataSource) may change or go away without touching it.
		return filling{}, &ctrl.Result{}, nil
	}
	src, notReady, err := r.cloneSource(ctx, dv)
	if err != nil {
		return filling{}, nil, err
	}
	if notReady != "" {
		return filling{}, &ctrl.Result{RequeueAfter: 2 * time.Second}, r.writeStatus(ctx, dv, sourceNotReady(dv, notReady))
	}
	cl, err := r.ensureClaim(ctx, dv, src.size)
	if err != nil {
		return filling{}, &ctrl.Result{RequeueAfter: 5 * time.Second}, r.writeStatus(ctx, dv, failedClaim(dv, err))
	}
	if cl.pvc.Status.Phase != corev1.ClaimBound {
		st, err := r.awaitBinding(ctx, dv, cl.pvc, src)
		if err != nil {
			return filling{}, nil, err
		}
		return filling{}, &ctrl.Result{RequeueAfter: 2 * time.Second}, r.writeStatus(ctx, dv, st)
	}
	if err := r.deleteBinder(ctx, dv); err != nil {
		return filling{}, nil, err
	}
	return filling{claim: cl, src: src}, nil, nil
}

// report maps the workflow onto the DataVolume's status.
func (r *Reconciler) report(ctx context.Context, dv *cdiv1.DataVolume, f *filling, run workflowreconcile.Run) (ctrl.Result, error) {
	if run.Started {
		_, typ := workflowOf(dv)
		r.Recorder.Eventf(dv, corev1.EventTypeNormal, scheduledReason(dv), "%s into %s scheduled on node %s (workflow %s)", typ, dv.Name, f.node, run.ID)
	}
	return ctrl.Result{}, r.writeStatus(ctx, dv, importStatus(dv, f.claim.pvc, run.State, f.progress))
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

// start is the workflow that fills the claim on its node.
func (r *Reconciler) start(ctx context.Context, dv *cdiv1.DataVolume, f *filling) (*workflowreconcile.Workflow, error) {
	t, err := r.target(ctx, f.claim.pvc)
	if err != nil {
		return nil, err
	}
	in, err := r.workflowInput(ctx, dv, f.claim, t, f.src)
	if err != nil {
		return nil, err
	}
	f.node = t.node
	_, typ := workflowOf(dv)
	return &workflowreconcile.Workflow{Type: typ, Input: in}, nil
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

// release removes what a deleted DataVolume leaves beside its workflow,
// once the workflow has stopped and cleaned up its partial disk and
// scratch files.
func (r *Reconciler) release(ctx context.Context, dv *cdiv1.DataVolume) (bool, ctrl.Result, error) {
	if err := r.deleteBinder(ctx, dv); err != nil {
		return false, ctrl.Result{}, err
	}
	forgetProgress(dv)
	return true, ctrl.Result{}, nil
}
