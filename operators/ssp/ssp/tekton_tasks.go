package ssp

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TektonTasks is the component that installs the Tekton tasks (the Tasks,
// their service accounts and roles) and the example pipelines, as the
// tekton-tasks-operator did, wherever Tekton Pipelines is installed.
const TektonTasks = "tekton-tasks"

// TektonTasksNamespaceAnnotation on the SSP CR names the namespace of the
// Tasks and pipelines; SSP v1beta3 has no field for it any more.
const TektonTasksNamespaceAnnotation = "ssp.virtflow.io/tekton-tasks-namespace"

// DefaultTektonTasksNamespace holds the Tasks and pipelines unless the
// SSP CR names another namespace.
const DefaultTektonTasksNamespace = "virtflow-pipelines"

// tektonTaskCRD is Tekton's Task kind: without it there is nothing to
// install the tasks into, and the component has nothing to do.
const tektonTaskCRD = "tasks.tekton.dev"

// TektonManifests renders the tasks' objects for a namespace.
type TektonManifests func(namespace string) ([]*unstructured.Unstructured, error)

// tektonNamespace is where the SSP CR wants its Tasks.
func tektonNamespace(owner client.Object) string {
	if ns := owner.GetAnnotations()[TektonTasksNamespaceAnnotation]; ns != "" {
		return ns
	}
	return DefaultTektonTasksNamespace
}

// tektonObjects are the objects to install, nil when Tekton is absent.
func (d *Deployer) tektonObjects(ctx context.Context, owner client.Object) ([]*unstructured.Unstructured, string, error) {
	if d.Tekton == nil {
		return nil, "", nil
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := d.apiReader().Get(ctx, client.ObjectKey{Name: tektonTaskCRD}, crd); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, "", nil
		}
		return nil, "", fmt.Errorf("looking for Tekton Pipelines (%s): %w", tektonTaskCRD, err)
	}
	ns := tektonNamespace(owner)
	objs, err := d.Tekton(ns)
	if err != nil {
		return nil, "", fmt.Errorf("rendering the tekton tasks: %w", err)
	}
	for _, o := range objs {
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		for k, v := range owner.GetLabels() {
			labels[k] = v
		}
		labels[labelManagedBy], labels[labelComponent] = "ssp-operator", TektonTasks
		o.SetLabels(labels)
	}
	return objs, ns, nil
}

// Labels the operator marks the tasks' objects with.
const (
	labelManagedBy = "app.kubernetes.io/managed-by"
	labelComponent = "app.kubernetes.io/component"
)

// deployTektonTasks applies every task object; server-side apply leaves
// objects already as wanted untouched.
func (d *Deployer) deployTektonTasks(ctx context.Context, owner client.Object) error {
	objs, ns, err := d.tektonObjects(ctx, owner)
	if err != nil || objs == nil {
		return err
	}
	if err := d.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	for _, o := range objs {
		if err := d.Client.Patch(ctx, o, client.Apply, client.FieldOwner("ssp-operator"), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s for %s: %w", o.GetKind(), o.GetName(), TektonTasks, err)
		}
	}
	return nil
}

// probeTektonTasks passes once every task object exists, or at once when
// Tekton Pipelines is not installed.
func (d *Deployer) probeTektonTasks(ctx context.Context, owner client.Object) error {
	objs, ns, err := d.tektonObjects(ctx, owner)
	if err != nil {
		return err
	}
	n := 0
	for _, o := range objs {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(o.GroupVersionKind())
		err := d.apiReader().Get(ctx, client.ObjectKeyFromObject(o), got)
		if err == nil {
			n++
			continue
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	if n < len(objs) {
		return fmt.Errorf("%s: %d of %d objects installed in %s", TektonTasks, n, len(objs), ns)
	}
	return nil
}

// undeployTektonTasks removes what deployTektonTasks installed.
func (d *Deployer) undeployTektonTasks(ctx context.Context, owner client.Object) error {
	objs, _, err := d.tektonObjects(ctx, owner)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := d.Client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// apiReader reads from the API server itself when the Workloads have a
// reader for it: the Task CRD appears after the operator started.
func (d *Deployer) apiReader() client.Reader {
	if d.Reader != nil {
		return d.Reader
	}
	return d.Client
}
