// Package hco is the HyperConverged operator: it starts the install workflow
// for a new HyperConverged, mirrors its progress into status, keeps the
// component CRs at the settings the HyperConverged derives, aggregates their
// conditions once installed, and on deletion starts the uninstall workflow
// and waits for it. Creating, waiting and deleting are workflow steps; the
// reconciler itself only applies the desired state it computed.
package hyperconverged

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

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/kube/apply"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operands"
)

// Finalizer keeps a HyperConverged until its components are removed.
const Finalizer = "kubevirt.io/hyperconverged"

// Reconciler reconciles HyperConverged objects.
type Reconciler struct {
	Client    crclient.Client
	Temporal  workflowstate.Client
	TaskQueue string
	Recorder  record.EventRecorder
	// Version is reported in status.versions as the operator version.
	Version string
	// Namespace is the install namespace, the only one whose
	// kubevirt-hyperconverged the operator acts on.
	Namespace string
	// watcher wakes the reconciler when an install or uninstall moves on;
	// SetupWithManager starts it.
	watcher *workflowstate.Watcher
}

// Reconcile follows the model reconciler: get, deletion, finalizer,
// describe, start if absent, map to conditions, patch status once, and
// wait for the workflow's next event.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hc := &hcov1beta1.HyperConverged{}
	if err := r.Client.Get(ctx, req.NamespacedName, hc); err != nil {
		return ctrl.Result{}, crclient.IgnoreNotFound(err)
	}
	if !r.isTheHyperConverged(hc) {
		return ctrl.Result{}, r.markInvalid(ctx, hc)
	}
	if hc.DeletionTimestamp != nil {
		return r.finalize(ctx, hc)
	}
	if controllerutil.AddFinalizer(hc, Finalizer) {
		if err := r.Client.Update(ctx, hc); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer to HyperConverged %s: %w", hc.Name, err)
		}
	}
	id := hco.InstallWorkflowID(string(hc.UID))
	var progress hco.InstallProgress
	state, err := workflowstate.Describe(ctx, r.Temporal, id, hco.ProgressMemoKey, &progress)
	if err != nil {
		return ctrl.Result{}, err
	}
	if state.Phase == workflowstate.NotFound {
		in := hco.InstallInput{HyperConverged: ref(hc)}
		if err := r.start(ctx, hc, id, hco.InstallWorkflowName, in, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE); err != nil {
			return ctrl.Result{}, err
		}
		state.Phase = workflowstate.Running
	}
	var children []hco.ComponentStatus
	if state.Phase == workflowstate.Succeeded {
		if children, err = r.keepComponents(ctx, hc); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.writeStatus(ctx, hc, conditionsFor(state, progress, children), children); err != nil {
		return ctrl.Result{}, err
	}
	return r.waitFor(id, state, hc), nil
}

// waitFor watches a running workflow, so its next event reconciles again;
// the resync is only a safety net.
func (r *Reconciler) waitFor(id string, state workflowstate.State, hc *hcov1beta1.HyperConverged) ctrl.Result {
	if state.Phase != workflowstate.Running {
		return ctrl.Result{}
	}
	if r.watcher != nil {
		r.watcher.Watch(id, state.HistoryLength, hc)
	}
	return ctrl.Result{RequeueAfter: workflowstate.Resync}
}

func ref(hc *hcov1beta1.HyperConverged) hco.HyperConvergedRef {
	return hco.HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: string(hc.UID)}
}

func (r *Reconciler) start(ctx context.Context, hc *hcov1beta1.HyperConverged, id, typ string, in any, reuse enumspb.WorkflowIdReusePolicy) error {
	opts := client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                r.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    reuse,
	}
	if _, err := r.Temporal.ExecuteWorkflow(ctx, opts, typ, in); err != nil {
		return fmt.Errorf("starting %s for HyperConverged %s: %w", typ, hc.Name, err)
	}
	r.Recorder.Eventf(hc, "Normal", strings.TrimPrefix(typ, "hco.")+"Started", "Started workflow %s", id)
	return nil
}

// keepComponents applies each component's managed settings (reverting
// out-of-band edits, recreating a deleted component) and reads back each
// component's conditions. It never deletes: that is the uninstall's job.
func (r *Reconciler) keepComponents(ctx context.Context, hc *hcov1beta1.HyperConverged) ([]hco.ComponentStatus, error) {
	var out []hco.ComponentStatus
	for _, desired := range operands.Desired(hc) {
		ref := operands.RefOf(desired)
		wrote, err := apply.Managed(ctx, r.Client, desired)
		if err != nil {
			return nil, err
		}
		if wrote {
			outOfBandModifications.WithLabelValues(strings.ToLower(ref.Kind) + "/" + ref.Name).Inc()
			r.Recorder.Eventf(hc, "Warning", "Overwritten", "Overwritten %s %s", ref.Kind, ref.Name)
		}
		st, err := operands.ReadStatus(ctx, r.Client, ref)
		if err != nil && crclient.IgnoreNotFound(err) != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// finalize cancels a running install (it removes what it created as it
// unwinds), then runs the uninstall workflow and lets the HyperConverged go
// once it has succeeded. A failed uninstall is reported and started again
// after the resync interval.
func (r *Reconciler) finalize(ctx context.Context, hc *hcov1beta1.HyperConverged) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(hc, Finalizer) {
		return ctrl.Result{}, nil
	}
	installID := hco.InstallWorkflowID(string(hc.UID))
	install, err := workflowstate.Describe(ctx, r.Temporal, installID, "", nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	if install.Phase == workflowstate.Running {
		if err := r.Temporal.CancelWorkflow(ctx, installID, ""); err != nil {
			return ctrl.Result{}, fmt.Errorf("cancelling install workflow %s: %w", installID, err)
		}
		return r.waitFor(installID, install, hc), nil
	}
	id := hco.UninstallWorkflowID(string(hc.UID))
	state, err := workflowstate.Describe(ctx, r.Temporal, id, "", nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	switch state.Phase {
	case workflowstate.Succeeded:
		return ctrl.Result{}, r.release(ctx, hc)
	case workflowstate.Failed, workflowstate.Cancelled:
		if wait := workflowstate.Resync - time.Since(state.Closed); wait > 0 {
			r.Recorder.Eventf(hc, "Warning", "UninstallFailed", "Removing components did not complete, trying again in %s: %s", wait.Round(time.Second), state.Message)
			return ctrl.Result{RequeueAfter: wait}, r.writeStatus(ctx, hc, uninstallFailed(state), nil)
		}
		fallthrough
	case workflowstate.NotFound:
		in := hco.UninstallInput{HyperConverged: ref(hc), Components: operands.Refs(hc)}
		if err := r.start(ctx, hc, id, hco.UninstallWorkflowName, in, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY); err != nil {
			return ctrl.Result{}, err
		}
		state.Phase, state.HistoryLength = workflowstate.Running, 0
	}
	return r.waitFor(id, state, hc), nil
}

func (r *Reconciler) release(ctx context.Context, hc *hcov1beta1.HyperConverged) error {
	controllerutil.RemoveFinalizer(hc, Finalizer)
	if err := r.Client.Update(ctx, hc); err != nil {
		return fmt.Errorf("removing finalizer from HyperConverged %s: %w", hc.Name, err)
	}
	return nil
}
