// Package hco is the HyperConverged operator: it starts the install workflow
// for a new HyperConverged, mirrors its progress into status, keeps the
// component CRs at the settings the HyperConverged derives, and aggregates
// their conditions once installed.
package hco

import (
	"context"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	acts "github.com/virtflow/virtflow/activities/hco"
	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/operators/workflowstate"
	wf "github.com/virtflow/virtflow/workflows/hco"
)

// Finalizer keeps a HyperConverged until its components are removed.
const Finalizer = "kubevirt.io/hyperconverged"

// WorkflowID is the install workflow's ID for a HyperConverged UID.
func WorkflowID(uid string) string { return "hco-install-" + uid }

// Reconciler reconciles HyperConverged objects.
type Reconciler struct {
	Client    crclient.Client
	Temporal  workflowstate.Client
	TaskQueue string
	Recorder  record.EventRecorder
	// Version is reported in status.versions as the operator version.
	Version string
}

// Reconcile follows the model reconciler: get, deletion, finalizer,
// describe, start if absent, map to conditions, patch status once, requeue.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hc := &hcov1beta1.HyperConverged{}
	if err := r.Client.Get(ctx, req.NamespacedName, hc); err != nil {
		return ctrl.Result{}, crclient.IgnoreNotFound(err)
	}
	if hc.DeletionTimestamp != nil {
		return r.finalize(ctx, hc)
	}
	if controllerutil.AddFinalizer(hc, Finalizer) {
		if err := r.Client.Update(ctx, hc); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer to HyperConverged %s: %w", hc.Name, err)
		}
	}
	var progress wf.InstallProgress
	state, err := workflowstate.Describe(ctx, r.Temporal, WorkflowID(string(hc.UID)), wf.ProgressMemoKey, &progress)
	if err != nil {
		return ctrl.Result{}, err
	}
	if state.Phase == workflowstate.NotFound {
		if err := r.startInstall(ctx, hc); err != nil {
			return ctrl.Result{}, err
		}
		state.Phase = workflowstate.Running
	}
	var children []acts.ComponentStatus
	if state.Phase == workflowstate.Succeeded {
		if children, err = r.keepComponents(ctx, hc); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.writeStatus(ctx, hc, conditionsFor(state, progress, children), children); err != nil {
		return ctrl.Result{}, err
	}
	if state.Phase == workflowstate.Running {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	return ctrl.Result{RequeueAfter: 30 * time.Second}, nil
}

func (r *Reconciler) startInstall(ctx context.Context, hc *hcov1beta1.HyperConverged) error {
	opts := client.StartWorkflowOptions{
		ID:                       WorkflowID(string(hc.UID)),
		TaskQueue:                r.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	in := wf.InstallInput{HyperConverged: acts.HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: string(hc.UID)}}
	if _, err := r.Temporal.ExecuteWorkflow(ctx, opts, wf.InstallWorkflowName, in); err != nil {
		return fmt.Errorf("starting install workflow for HyperConverged %s: %w", hc.Name, err)
	}
	r.Recorder.Eventf(hc, "Normal", "InstallStarted", "Started workflow %s", opts.ID)
	return nil
}

// keepComponents re-applies each component's managed settings (reverting
// out-of-band edits) and reads back each component's conditions.
func (r *Reconciler) keepComponents(ctx context.Context, hc *hcov1beta1.HyperConverged) ([]acts.ComponentStatus, error) {
	var out []acts.ComponentStatus
	for _, desired := range acts.DesiredComponents(hc) {
		ref := acts.RefOf(desired)
		wrote, err := acts.Apply(ctx, r.Client, desired)
		if err != nil {
			return nil, err
		}
		if wrote {
			outOfBandModifications.WithLabelValues(strings.ToLower(ref.Kind) + "/" + ref.Name).Inc()
			r.Recorder.Eventf(hc, "Warning", "Overwritten", "Overwritten %s %s", ref.Kind, ref.Name)
		}
		st, err := acts.ReadComponentStatus(ctx, r.Client, ref)
		if err != nil && crclient.IgnoreNotFound(err) != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func (r *Reconciler) finalize(ctx context.Context, hc *hcov1beta1.HyperConverged) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(hc, Finalizer) {
		return ctrl.Result{}, nil
	}
	id := WorkflowID(string(hc.UID))
	state, err := workflowstate.Describe(ctx, r.Temporal, id, "", nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	if state.Phase == workflowstate.Running {
		if err := r.Temporal.CancelWorkflow(ctx, id, ""); err != nil {
			return ctrl.Result{}, fmt.Errorf("cancelling install workflow %s: %w", id, err)
		}
		// The workflow removes what it created as it unwinds; wait for it.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	gone, err := r.deleteComponents(ctx, hc)
	if err != nil || !gone {
		return ctrl.Result{RequeueAfter: time.Second}, err
	}
	controllerutil.RemoveFinalizer(hc, Finalizer)
	if err := r.Client.Update(ctx, hc); err != nil {
		return ctrl.Result{}, fmt.Errorf("removing finalizer from HyperConverged %s: %w", hc.Name, err)
	}
	return ctrl.Result{}, nil
}

// deleteComponents deletes each component CR and reports whether all are gone.
func (r *Reconciler) deleteComponents(ctx context.Context, hc *hcov1beta1.HyperConverged) (bool, error) {
	a := &acts.Activities{Client: r.Client}
	var refs []acts.ComponentRef
	for _, d := range acts.DesiredComponents(hc) {
		refs = append(refs, acts.RefOf(d))
	}
	if err := a.DeleteComponents(ctx, refs); err != nil {
		return false, err
	}
	for _, ref := range refs {
		if _, err := acts.ReadComponentStatus(ctx, r.Client, ref); crclient.IgnoreNotFound(err) != nil {
			return false, err
		} else if err == nil {
			return false, nil
		}
	}
	return true, nil
}
