// Package modifydataobject is the modify-data-object task: it creates a
// DataVolume or DataSource from a manifest (optionally replacing one of
// the same name and waiting until CDI finished it), or deletes a
// DataVolume, DataSource or PersistentVolumeClaim.
package modifydataobject

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Task is modify-data-object.
var Task = stepenv.Task{Name: "modify-data-object", Run: run}

// pollInterval is how often the task looks at what it waits for (and
// tells the runner it is alive); tests shorten it.
var pollInterval = 5 * time.Second

func run(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	_, err := apply(ctx, env, params)
	return err
}

// apply does the task and returns the object it created (nil when it
// deleted one), for the container step to print.
func apply(ctx context.Context, env stepenv.Env, params stepenv.Params) (*unstructured.Unstructured, error) {
	o, err := parseOptions(params, env.Namespace)
	if err != nil {
		return nil, err
	}
	if o.deleteObject {
		return nil, deleteObject(ctx, env, o)
	}
	created, err := createObject(ctx, env, o)
	if err != nil {
		return nil, err
	}
	if err := env.Results.WriteObject(created); err != nil {
		return nil, err
	}
	return created, nil
}

// createObject creates o's object in o's namespace, replacing and waiting
// as o asks.
func createObject(ctx context.Context, env stepenv.Env, o *options) (*unstructured.Unstructured, error) {
	obj := o.object.DeepCopy()
	obj.SetNamespace(o.namespace)
	if o.setOwner {
		if err := setPodOwner(ctx, env, o, obj); err != nil {
			return nil, err
		}
	}
	if o.allowReplace && obj.GetName() != "" {
		if err := deleteOld(ctx, env, obj); err != nil {
			return nil, fmt.Errorf("could not create data object: %v", err)
		}
	}
	if err := env.Client.Create(ctx, obj); err != nil {
		return nil, fmt.Errorf("could not create data object: %v", err)
	}
	env.Logf("created %s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
	if !o.waitForSuccess {
		return obj, nil
	}
	env.Logf("waiting for success of data object %s/%s", obj.GetNamespace(), obj.GetName())
	if err := waitForSuccess(ctx, env, obj, o.timeout); err != nil {
		return nil, fmt.Errorf("Failed to wait for success of data object: %v", err)
	}
	return obj, nil
}
