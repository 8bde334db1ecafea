// Package hyperconverged is the HyperConverged operator: it starts the install workflow
// for a new HyperConverged, mirrors its progress into status, keeps the
// component CRs at the settings the HyperConverged derives, aggregates their
// conditions once installed, and on deletion starts the uninstall workflow
// and waits for it. Creating, waiting and deleting are workflow steps; the
// reconciler itself only applies the desired state it computed.
package hyperconverged

import (
	"context"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/kube/apply"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
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

// Reconcile runs the workflow-backed lifecycle with the install workflow;
// deletion runs the uninstall workflow once the install has stopped.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.lifecycle().Reconcile(ctx, req)
}

// observed is what one reconcile gathers about the HyperConverged: the
// install's progress and the shape of the cluster it runs on.
type observed struct {
	progress hco.InstallProgress
	// highlyAvailable is whether the cluster has at least two workers.
	highlyAvailable bool
}

func (r *Reconciler) lifecycle() workflowreconcile.Lifecycle[*hcov1beta1.HyperConverged, observed] {
	return workflowreconcile.Lifecycle[*hcov1beta1.HyperConverged, observed]{
		Objects:    workflowreconcile.Objects{Client: r.Client, Kind: "HyperConverged", Finalizer: Finalizer},
		Workflows:  r.workflows(),
		New:        func() *hcov1beta1.HyperConverged { return &hcov1beta1.HyperConverged{} },
		Accept:     r.accept,
		Prepare:    r.prepare,
		WorkflowID: func(hc *hcov1beta1.HyperConverged) string { return hco.InstallWorkflowID(string(hc.UID)) },
		MemoKey:    hco.ProgressMemoKey,
		Progress:   func(o *observed) any { return &o.progress },
		Start:      install,
		Report:     r.report,
		Finalize:   r.uninstall,
	}
}

func (r *Reconciler) workflows() workflowreconcile.Workflows {
	return workflowreconcile.Workflows{Temporal: r.Temporal, Watcher: r.watcher, TaskQueue: r.TaskQueue}
}

// accept acts on the one HyperConverged and tells the owner of any other
// why nothing happens.
func (r *Reconciler) accept(ctx context.Context, hc *hcov1beta1.HyperConverged) (bool, error) {
	if r.isTheHyperConverged(hc) {
		return true, nil
	}
	return false, r.markInvalid(ctx, hc)
}

// prepare measures the infrastructure on every reconcile, as HCO does, so
// a node added, removed or relabelled shows in status.
func (r *Reconciler) prepare(ctx context.Context, hc *hcov1beta1.HyperConverged) (observed, *ctrl.Result, error) {
	ha, err := r.readHighlyAvailable(ctx)
	if err != nil {
		return observed{}, nil, err
	}
	return observed{highlyAvailable: ha}, nil, nil
}

// install is the workflow that creates a new HyperConverged's components.
func install(_ context.Context, hc *hcov1beta1.HyperConverged, _ *observed) (*workflowreconcile.Workflow, error) {
	return &workflowreconcile.Workflow{Type: hco.InstallWorkflowName, Input: hco.InstallInput{HyperConverged: ref(hc)}}, nil
}

// report mirrors the install's progress and, once it is done, keeps the
// components and aggregates their conditions.
func (r *Reconciler) report(ctx context.Context, hc *hcov1beta1.HyperConverged, o *observed, run workflowreconcile.Run) (ctrl.Result, error) {
	if run.Started {
		r.started(hc, hco.InstallWorkflowName, run.ID)
	}
	var children []hco.ComponentStatus
	if run.Phase == workflowstate.Succeeded {
		defaulted, err := r.ensureEvictionStrategy(ctx, hc, o.highlyAvailable)
		if err != nil {
			return ctrl.Result{}, err
		}
		if children, err = r.keepComponents(ctx, hc, defaulted); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.writeStatus(ctx, hc, conditionsFor(run.State, o.progress, children), &o.highlyAvailable)
}

func (r *Reconciler) started(hc *hcov1beta1.HyperConverged, typ, id string) {
	r.Recorder.Eventf(hc, "Normal", strings.TrimPrefix(typ, "hco.")+"Started", "Started workflow %s", id)
}

func ref(hc *hcov1beta1.HyperConverged) hco.HyperConvergedRef {
	return hco.HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: string(hc.UID)}
}

// keepComponents applies each component's managed settings (reverting
// out-of-band edits, recreating a deleted component) and reads back each
// component's conditions. It never deletes: that is the uninstall's job.
// hcoChanged says this reconcile changed the HyperConverged's spec
// itself, so what it writes then is no out-of-band edit reverted.
func (r *Reconciler) keepComponents(ctx context.Context, hc *hcov1beta1.HyperConverged, hcoChanged bool) ([]hco.ComponentStatus, error) {
	var out []hco.ComponentStatus
	objs, err := operands.Patched(hc)
	if err != nil {
		return nil, err
	}
	for _, desired := range objs {
		ref := operands.RefOf(desired)
		wrote, err := apply.Managed(ctx, r.Client, desired)
		if err != nil {
			return nil, err
		}
		if wrote && !hcoChanged {
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

// uninstall runs once the install has stopped (a cancelled install removes
// what it created as it unwinds): it runs the uninstall workflow and lets
// the HyperConverged go once that has succeeded. A failed uninstall is
// reported and started again after the resync interval.
func (r *Reconciler) uninstall(ctx context.Context, hc *hcov1beta1.HyperConverged) (bool, ctrl.Result, error) {
	id := hco.UninstallWorkflowID(string(hc.UID))
	state, err := workflowstate.Describe(ctx, r.Temporal, id, "", nil)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	switch state.Phase {
	case workflowstate.Succeeded:
		return true, ctrl.Result{}, nil
	case workflowstate.Failed, workflowstate.Cancelled:
		if wait := workflowstate.Resync - time.Since(state.Closed); wait > 0 {
			r.Recorder.Eventf(hc, "Warning", "UninstallFailed", "Removing components did not complete, trying again in %s: %s", wait.Round(time.Second), state.Message)
			return false, ctrl.Result{RequeueAfter: wait}, r.writeStatus(ctx, hc, uninstallFailed(state), nil)
		}
		fallthrough
	case workflowstate.NotFound:
		wf := workflowreconcile.Workflow{
			Type:        hco.UninstallWorkflowName,
			Input:       hco.UninstallInput{HyperConverged: ref(hc), Components: operands.Refs(hc)},
			ReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		}
		if err := r.workflows().Ensure(ctx, id, wf); err != nil {
			return false, ctrl.Result{}, err
		}
		r.started(hc, wf.Type, id)
		state = workflowstate.State{Phase: workflowstate.Running}
	}
	return false, r.workflows().Wait(id, state, hc), nil
}
