package volumepopulator

import (
	"context"
	"fmt"
	"maps"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
)

func binderName(prime *corev1.PersistentVolumeClaim) string { return "cdi-binder-" + prime.Name }

func workflowID(pvc *corev1.PersistentVolumeClaim) string {
	return cdi.ImportWorkflowID(string(pvc.UID))
}

// populate gets the prime bound, fills it, and hands its volume over once
// the import succeeded.
func (r *Reconciler) populate(ctx context.Context, pvc, prime *corev1.PersistentVolumeClaim) (ctrl.Result, error) {
	if prime.Annotations[AnnPodPhase] == string(corev1.PodSucceeded) {
		return r.handOver(ctx, pvc, prime)
	}
	if prime.Status.Phase != corev1.ClaimBound {
		if prime.Annotations[AnnSelectedNode] == "" {
			// Nobody chose a node yet: a binder pod lets the scheduler.
			if err := datavolume.EnsureBinder(ctx, r.Client, prime, binderName(prime), prime.Name, nil); err != nil {
				return ctrl.Result{}, err
			}
		}
		return ctrl.Result{RequeueAfter: 2 * time.Second}, r.annotate(ctx, pvc, targetAnnotations(prime, pendingAnnotations()))
	}
	if err := datavolume.DeleteBinder(ctx, r.Client, prime.Namespace, binderName(prime)); err != nil {
		return ctrl.Result{}, err
	}
	state, err := r.importState(ctx, pvc, prime)
	if err != nil {
		return ctrl.Result{}, err
	}
	ann := podAnnotations(state)
	if err := r.annotate(ctx, prime, ann); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.annotate(ctx, pvc, targetAnnotations(prime, ann)); err != nil {
		return ctrl.Result{}, err
	}
	switch state.Phase {
	case workflowstate.Succeeded:
		return r.handOver(ctx, pvc, prime)
	case workflowstate.Failed, workflowstate.Cancelled:
		r.Recorder.Eventf(pvc, corev1.EventTypeWarning, reasonImportFailed, "import into %s failed", pvc.Name)
		return ctrl.Result{}, nil
	}
	if r.watcher != nil {
		r.watcher.Watch(workflowID(pvc), state.HistoryLength, pvc)
	}
	return ctrl.Result{RequeueAfter: workflowstate.Resync}, nil
}

// importState describes the import workflow, starting it if it does not
// exist yet.
func (r *Reconciler) importState(ctx context.Context, pvc, prime *corev1.PersistentVolumeClaim) (workflowstate.State, error) {
	state, err := workflowstate.Describe(ctx, r.Temporal, workflowID(pvc), "", nil)
	if err != nil || state.Phase != workflowstate.NotFound {
		return state, err
	}
	if err := r.start(ctx, pvc, prime); err != nil {
		return state, err
	}
	state.Phase = workflowstate.Running
	return state, nil
}

// start runs the DataVolume's import workflow into the prime's volume on
// its node; the target's UID keys the scratch space.
func (r *Reconciler) start(ctx context.Context, pvc, prime *corev1.PersistentVolumeClaim) error {
	src, err := r.source(ctx, pvc)
	if err != nil {
		return err
	}
	if src == nil || src.Spec.Source == nil {
		return fmt.Errorf("VolumeImportSource %s/%s for PVC %s is gone", pvc.Namespace, pvc.Spec.DataSourceRef.Name, pvc.Name)
	}
	node, dir, err := datavolume.VolumeTarget(ctx, r.Client, prime)
	if err != nil {
		return err
	}
	req := cdi.ImportRequest{Namespace: pvc.Namespace, Claim: prime.Name, VolumeDir: dir, Key: string(pvc.UID),
		Size: datavolume.UsableSize(ctx, r.Client, prime), Blank: src.Spec.Source.Blank != nil}
	if !req.Blank {
		ref, ok := datavolume.SourceRef(ctx, r.Client, src.Spec.Source.HTTP, src.Spec.Source.Registry)
		if !ok {
			return fmt.Errorf("VolumeImportSource %s/%s has no source virtflow can import", src.Namespace, src.Name)
		}
		req.Source = ref
	}
	in := cdi.ImportInput{DataVolume: pvc.Namespace + "/" + pvc.Name, Node: node, Request: req}
	opts := client.StartWorkflowOptions{
		ID: workflowID(pvc), TaskQueue: r.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	if _, err := r.Temporal.ExecuteWorkflow(ctx, opts, cdi.ImportWorkflowName, in); err != nil {
		return fmt.Errorf("starting import into PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	return nil
}

// cancel stops a running import of a claim being deleted.
func (r *Reconciler) cancel(ctx context.Context, pvc *corev1.PersistentVolumeClaim) error {
	state, err := workflowstate.Describe(ctx, r.Temporal, workflowID(pvc), "", nil)
	if err != nil || state.Phase != workflowstate.Running {
		return err
	}
	if err := r.Temporal.CancelWorkflow(ctx, workflowID(pvc), ""); err != nil {
		return fmt.Errorf("cancelling import into PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	return nil
}

// annotate merges ann into the claim's annotations and patches only on
// change.
func (r *Reconciler) annotate(ctx context.Context, pvc *corev1.PersistentVolumeClaim, ann map[string]string) error {
	before := pvc.DeepCopy()
	if pvc.Annotations == nil {
		pvc.Annotations = map[string]string{}
	}
	maps.Copy(pvc.Annotations, ann)
	if maps.Equal(before.Annotations, pvc.Annotations) {
		return nil
	}
	if err := r.Client.Patch(ctx, pvc, crclient.MergeFrom(before)); err != nil {
		return fmt.Errorf("annotating PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	return nil
}
