package volumepopulator

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/workflowreconcile"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
)

func binderName(prime *corev1.PersistentVolumeClaim) string { return "cdi-binder-" + prime.Name }

func workflowID(pvc *corev1.PersistentVolumeClaim) string {
	return cdi.ImportWorkflowID(string(pvc.UID))
}

// awaitPrime hands over a prime whose import succeeded, and gets an
// unbound prime bound; waiting tells that the reconcile ends there, with
// res.
func (r *Reconciler) awaitPrime(ctx context.Context, pvc, prime *corev1.PersistentVolumeClaim) (res ctrl.Result, waiting bool, err error) {
	if prime.Annotations[AnnPodPhase] == string(corev1.PodSucceeded) {
		res, err := r.handOver(ctx, pvc, prime)
		return res, true, err
	}
	if prime.Status.Phase != corev1.ClaimBound {
		if prime.Annotations[AnnSelectedNode] == "" {
			// Nobody chose a node yet: a binder pod lets the scheduler.
			if err := datavolume.EnsureBinder(ctx, r.Client, prime, binderName(prime), prime.Name, nil); err != nil {
				return ctrl.Result{}, true, err
			}
		}
		return ctrl.Result{RequeueAfter: 2 * time.Second}, true, r.annotate(ctx, pvc, targetAnnotations(prime, pendingAnnotations(), ""))
	}
	return ctrl.Result{}, false, datavolume.DeleteBinder(ctx, r.Client, prime.Namespace, binderName(prime))
}

// report shows the import, as its workflow's memo tells it, on the prime
// as the importer pod's state, and on the target as upstream's populator
// copies it; a filled prime's volume is handed over.
func (r *Reconciler) report(ctx context.Context, pvc *corev1.PersistentVolumeClaim, p *population, run workflowreconcile.Run) (ctrl.Result, error) {
	imp := importerOf(run.State, p.progress, p.prime)
	ann := podAnnotations(run.State, imp)
	if err := r.annotate(ctx, p.prime, ann); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.annotate(ctx, pvc, targetAnnotations(p.prime, ann, imp.progress)); err != nil {
		return ctrl.Result{}, err
	}
	switch run.Phase {
	case workflowstate.Succeeded:
		return r.handOver(ctx, pvc, p.prime)
	case workflowstate.Failed, workflowstate.Cancelled:
		r.Recorder.Eventf(pvc, corev1.EventTypeWarning, reasonImportFailed, "import into %s failed", pvc.Name)
	}
	return ctrl.Result{}, nil
}

// start runs the DataVolume's import workflow into the prime's volume on
// its node; the target's UID keys the scratch space.
func (r *Reconciler) start(ctx context.Context, pvc *corev1.PersistentVolumeClaim, p *population) (*workflowreconcile.Workflow, error) {
	src, err := r.source(ctx, pvc)
	if err != nil {
		return nil, err
	}
	if src == nil || src.Spec.Source == nil {
		return nil, fmt.Errorf("VolumeImportSource %s/%s for PVC %s is gone", pvc.Namespace, pvc.Spec.DataSourceRef.Name, pvc.Name)
	}
	node, dir, err := datavolume.VolumeTarget(ctx, r.Client, p.prime)
	if err != nil {
		return nil, err
	}
	req := cdi.ImportRequest{Namespace: pvc.Namespace, Claim: p.prime.Name, VolumeDir: dir, Key: string(pvc.UID),
		Size: datavolume.UsableSize(ctx, r.Client, p.prime), Blank: src.Spec.Source.Blank != nil}
	if !req.Blank {
		ref, ok := datavolume.SourceRef(ctx, r.Client, src.Spec.Source.HTTP, src.Spec.Source.Registry)
		if !ok {
			return nil, fmt.Errorf("VolumeImportSource %s/%s has no source virtflow can import", src.Namespace, src.Name)
		}
		req.Source = ref
	}
	in := cdi.ImportInput{DataVolume: pvc.Namespace + "/" + pvc.Name, Node: node, Request: req}
	return &workflowreconcile.Workflow{Type: cdi.ImportWorkflowName, Input: in}, nil
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
