package workloads

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/rollout"
)

// Render returns the objects of one component of a CR. The first is the
// component's Deployment or DaemonSet, whose pods' readiness is the
// component's; the others are what it needs (ServiceAccount, bindings,
// Services, certificates, registrations). Objects carry their apiVersion
// and kind. It may read what exists (e.g. certificates still valid) but
// changes nothing.
type Render func(ctx context.Context, c client.Reader, owner client.Object, name string) ([]client.Object, error)

// Workloads runs components as pods: it applies what Render returns,
// reads readiness from the workload's status, and deletes it all again.
type Workloads struct {
	Client client.Client
	// Reader is what Render reads through; the API server itself, so that
	// a Secret applied a moment ago is found and its certificates kept,
	// where a cache might not have it yet and a render would issue new ones.
	Reader client.Reader
	Render Render
	// FieldOwner is the operator's name in managed fields.
	FieldOwner string
}

// Deploy server-side applies the component's objects, each one the CR may
// own (see applied) owned by it, so that garbage collection
// removes them with it even if the operator is gone.
func (w *Workloads) Deploy(ctx context.Context, owner client.Object, name string) error {
	objs, err := w.Render(ctx, w.reader(), owner, name)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		u, err := w.applied(owner, obj)
		if err != nil {
			return err
		}
		if err := w.Client.Patch(ctx, u, client.Apply, client.FieldOwner(w.FieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

func (w *Workloads) reader() client.Reader {
	if w.Reader != nil {
		return w.Reader
	}
	return w.Client
}

// applied is obj as an apply configuration: no status, no server fields,
// and the CR as controller of what lives in its namespace.
func (w *Workloads) applied(owner, obj client.Object) (*unstructured.Unstructured, error) {
	u, ok := obj.DeepCopyObject().(*unstructured.Unstructured)
	if !ok {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("converting %s: %w", obj.GetName(), err)
		}
		u = &unstructured.Unstructured{Object: m}
	}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	// A cluster-scoped CR (CDI, HostPathProvisioner) may own anything; a
	// namespaced one only what lives beside it.
	if owner.GetNamespace() == "" || u.GetNamespace() == owner.GetNamespace() {
		yes := true
		gvk := owner.GetObjectKind().GroupVersionKind()
		u.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: owner.GetName(), UID: owner.GetUID(),
			Controller: &yes, BlockOwnerDeletion: &yes,
		}})
	}
	return u, nil
}

// Undeploy deletes the component's objects; pods go with their workload.
func (w *Workloads) Undeploy(ctx context.Context, owner client.Object, name string) error {
	objs, err := w.Render(ctx, w.reader(), owner, name)
	if err != nil {
		return err
	}
	var errs []error
	for _, obj := range objs {
		err := w.Client.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("deleting %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// Probe reads the component's workload: ready when its current pods all
// pass their readiness probes.
func (w *Workloads) Probe(ctx context.Context, owner client.Object, name string) error {
	objs, err := w.Render(ctx, w.reader(), owner, name)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		return fmt.Errorf("%s has no workload", name)
	}
	switch want := objs[0].(type) {
	case *appsv1.Deployment:
		d := &appsv1.Deployment{}
		if err := w.Client.Get(ctx, client.ObjectKeyFromObject(want), d); err != nil {
			return notFound(name, err)
		}
		return pending(name, rollout.DeploymentPending(d))
	case *appsv1.DaemonSet:
		ds := &appsv1.DaemonSet{}
		if err := w.Client.Get(ctx, client.ObjectKeyFromObject(want), ds); err != nil {
			return notFound(name, err)
		}
		return pending(name, rollout.DaemonSetPending(ds))
	}
	return fmt.Errorf("%s: %T is not a workload", name, objs[0])
}

func pending(name, why string) error {
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s: %s", name, why)
}

func notFound(name string, err error) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s is not deployed", name)
	}
	return fmt.Errorf("reading %s: %w", name, err)
}

// Readiness says what a passing probe shows.
func (w *Workloads) Readiness() string { return "their pods are Ready" }

// Owned are the workload kinds whose changes re-run the reconcile.
func (w *Workloads) Owned() []client.Object {
	return []client.Object{&appsv1.Deployment{}, &appsv1.DaemonSet{}}
}
