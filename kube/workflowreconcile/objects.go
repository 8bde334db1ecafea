package workflowreconcile

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Objects writes the finalizer that keeps one kind's objects until their
// workflow has stopped.
type Objects struct {
	// Client reads and writes the objects.
	Client client.Client
	// Kind names the objects' kind in errors.
	Kind string
	// Finalizer keeps a deleted object until its workflow has stopped.
	// Empty for kinds whose objects may go at once: their deletion only
	// asks the workflow to stop.
	Finalizer string
}

// Holds tells whether obj carries the finalizer.
func (o Objects) Holds(obj client.Object) bool {
	return o.Finalizer != "" && controllerutil.ContainsFinalizer(obj, o.Finalizer)
}

// Hold adds the finalizer, writing only when it was missing.
func (o Objects) Hold(ctx context.Context, obj client.Object) error {
	if o.Finalizer == "" || !controllerutil.AddFinalizer(obj, o.Finalizer) {
		return nil
	}
	if err := o.Client.Update(ctx, obj); err != nil {
		return fmt.Errorf("adding finalizer to %s %s: %w", o.Kind, nameOf(obj), err)
	}
	return nil
}

// Release removes the finalizer, writing only when it was there; a
// deleted object then goes.
func (o Objects) Release(ctx context.Context, obj client.Object) error {
	if o.Finalizer == "" || !controllerutil.RemoveFinalizer(obj, o.Finalizer) {
		return nil
	}
	if err := o.Client.Update(ctx, obj); err != nil {
		return fmt.Errorf("removing finalizer from %s %s: %w", o.Kind, nameOf(obj), err)
	}
	return nil
}

// nameOf is how errors name an object: namespace/name, or the name of a
// cluster-scoped one.
func nameOf(obj client.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
