package customrun

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// crdPoll is how often the controller looks for Tekton's CustomRun kind
// until it is served.
const crdPoll = 30 * time.Second

// SetupWithManager runs the controller once Tekton Pipelines serves
// CustomRuns: on a cluster without Tekton, or until it is installed, the
// operator goes on with its other work.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	wait := manager.RunnableFunc(func(ctx context.Context) error {
		for !served(mgr.GetRESTMapper()) {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(crdPoll):
			}
		}
		return r.setup(mgr)
	})
	if err := mgr.Add(wait); err != nil {
		return fmt.Errorf("adding the CustomRun controller's start: %w", err)
	}
	return nil
}

func served(m meta.RESTMapper) bool {
	_, err := m.RESTMapping(GVK.GroupKind(), GVK.Version)
	return err == nil
}

// setup watches the CustomRuns that refer to a durable task, and their
// workflows.
func (r *Reconciler) setup(mgr ctrl.Manager) error {
	r.watcher = workflowstate.NewWatcher(r.Temporal)
	b, err := r.watcher.Into(mgr, ctrl.NewControllerManagedBy(mgr).Named("durable-tasks").
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		For(newObject(), builder.WithPredicates(predicate.NewPredicateFuncs(isOurs))))
	if err == nil {
		err = b.Complete(r)
	}
	if err != nil {
		return fmt.Errorf("setting up the CustomRun controller: %w", err)
	}
	return nil
}

// isOurs tells a durable task's CustomRun from other custom tasks'
// without decoding it.
func isOurs(o crclient.Object) bool {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return false
	}
	for _, field := range []string{"customRef", "customSpec"} {
		apiVersion, _, _ := unstructured.NestedString(u.Object, "spec", field, "apiVersion")
		kind, _, _ := unstructured.NestedString(u.Object, "spec", field, "kind")
		if apiVersion == ssp.APIVersion && (kind == ssp.KindDurableTask || kind == ssp.KindDurablePipeline) {
			return true
		}
	}
	return false
}
