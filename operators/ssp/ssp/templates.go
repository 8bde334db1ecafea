package ssp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	templatev1 "github.com/openshift/api/template/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/operands/commontemplates"
)

// CommonTemplates is the component that installs the common templates.
const CommonTemplates = "common-templates"

// DefaultBootImageNamespace is where the boot sources' DataSources live
// unless the SSP's DataImportCron templates name another namespace; every
// template's DATA_SOURCE_NAMESPACE defaults to it.
const DefaultBootImageNamespace = operands.DefaultBootImageNamespace

// Deployer runs the validator as pods (Workloads) and installs the common
// templates and the boot sources itself: they are objects, not pods, and
// live in other namespaces than the CR's.
type Deployer struct {
	*workloads.Workloads
	// Tekton renders the Tekton tasks' objects; none are installed when
	// nil.
	Tekton TektonManifests
}

// Deploy starts the component.
func (d *Deployer) Deploy(ctx context.Context, owner client.Object, name string) error {
	switch name {
	case DataSources:
		return d.deployBootSources(ctx, owner)
	case TektonTasks:
		return d.deployTektonTasks(ctx, owner)
	case CommonTemplates:
	default:
		return d.Workloads.Deploy(ctx, owner, name)
	}
	opts, err := templateOptions(owner)
	if err != nil {
		return err
	}
	if err := d.ensureNamespace(ctx, opts.Namespace); err != nil {
		return err
	}
	if err := d.shareTemplates(ctx, opts.Namespace); err != nil {
		return err
	}
	desired := commontemplates.Templates(opts)
	installed, err := d.installed(ctx, opts.Namespace)
	if err != nil {
		return err
	}
	if err := d.applyChanged(ctx, desired, installed); err != nil {
		return err
	}
	return d.retire(ctx, desired, installed, opts)
}

// Probe passes once every template of this release is installed.
func (d *Deployer) Probe(ctx context.Context, owner client.Object, name string) error {
	switch name {
	case DataSources:
		return d.probeBootSources(ctx, owner)
	case TektonTasks:
		return d.probeTektonTasks(ctx, owner)
	case CommonTemplates:
	default:
		return d.Workloads.Probe(ctx, owner, name)
	}
	opts, err := templateOptions(owner)
	if err != nil {
		return err
	}
	installed, err := d.installed(ctx, opts.Namespace)
	if err != nil {
		return err
	}
	desired := commontemplates.Templates(opts)
	n := 0
	for _, t := range desired {
		if got, ok := installed[t.Name]; ok && inSync(&got, &t) {
			n++
		}
	}
	if n < len(desired) {
		return fmt.Errorf("%s: %d of %d templates installed in %s", CommonTemplates, n, len(desired), opts.Namespace)
	}
	return nil
}

// Undeploy removes the templates it installed, deprecated ones included.
func (d *Deployer) Undeploy(ctx context.Context, owner client.Object, name string) error {
	switch name {
	case DataSources:
		return d.undeployBootSources(ctx, owner)
	case TektonTasks:
		return d.undeployTektonTasks(ctx, owner)
	case CommonTemplates:
	default:
		return d.Workloads.Undeploy(ctx, owner, name)
	}
	opts, err := templateOptions(owner)
	if err != nil {
		return err
	}
	if err := d.unshareTemplates(ctx, opts.Namespace); err != nil {
		return err
	}
	err = d.Client.DeleteAllOf(ctx, &templatev1.Template{}, client.InNamespace(opts.Namespace),
		client.MatchingLabels{commontemplates.LabelAppName: commontemplates.AppName, commontemplates.LabelType: commontemplates.TypeBase})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing the common templates from %s: %w", opts.Namespace, err)
	}
	return nil
}

// Readiness says what a passing probe shows.
func (d *Deployer) Readiness() string {
	return d.Workloads.Readiness() + ", the common templates are installed, the boot sources' crons exist and the tekton tasks are installed where Tekton Pipelines is"
}

// templateOptions reads where the templates go and where their
// DataSources are from the SSP CR.
func templateOptions(owner client.Object) (commontemplates.Options, error) {
	u, ok := owner.(*unstructured.Unstructured)
	if !ok {
		return commontemplates.Options{}, fmt.Errorf("reading SSP %s: unexpected %T", owner.GetName(), owner)
	}
	ns, _, _ := unstructured.NestedString(u.Object, "spec", "commonTemplates", "namespace")
	if ns == "" {
		return commontemplates.Options{}, errors.New("spec.commonTemplates.namespace is empty")
	}
	return commontemplates.Options{Namespace: ns, DataSourceNamespace: bootImageNamespace(u), SSPLabels: owner.GetLabels()}, nil
}

// bootImageNamespace is the boot-image namespace HCO names on the SSP CR,
// else DefaultBootImageNamespace. It is never taken from a DataImportCron
// template: a user's own may name any namespace.
func bootImageNamespace(u *unstructured.Unstructured) string {
	if ns := u.GetAnnotations()[operands.BootImageNamespaceAnnotation]; ns != "" {
		return ns
	}
	return DefaultBootImageNamespace
}

func (d *Deployer) ensureNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := d.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s for the common templates: %w", name, err)
	}
	return nil
}

// installed are the base templates in ns, by name.
func (d *Deployer) installed(ctx context.Context, ns string) (map[string]templatev1.Template, error) {
	list := &templatev1.TemplateList{}
	if err := d.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{commontemplates.LabelType: commontemplates.TypeBase}); err != nil {
		return nil, fmt.Errorf("listing templates in %s: %w", ns, err)
	}
	out := make(map[string]templatev1.Template, len(list.Items))
	for _, t := range list.Items {
		out[t.Name] = t
	}
	return out, nil
}

// applyChanged applies each template that is missing or differs from what
// was last applied.
func (d *Deployer) applyChanged(ctx context.Context, desired []templatev1.Template, installed map[string]templatev1.Template) error {
	for i := range desired {
		t := &desired[i]
		if got, ok := installed[t.Name]; ok && inSync(&got, t) {
			continue
		}
		if err := d.apply(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// retire deprecates or deletes the installed templates this release does
// not install, as SSP does on an upgrade.
func (d *Deployer) retire(ctx context.Context, desired []templatev1.Template, installed map[string]templatev1.Template, opts commontemplates.Options) error {
	names := make(map[string]bool, len(desired))
	for _, t := range desired {
		names[t.Name] = true
	}
	for name, t := range installed {
		switch commontemplates.FateOf(&t, names, opts) {
		case commontemplates.Deprecate:
			// An update, not an apply: the labels that go may belong to
			// another field manager (an older operator, a person).
			dep := commontemplates.Deprecated(&t, opts)
			if equality.Semantic.DeepEqual(dep.ObjectMeta, t.ObjectMeta) {
				continue
			}
			if err := d.Client.Update(ctx, dep); err != nil {
				return fmt.Errorf("deprecating template %s/%s: %w", t.Namespace, name, err)
			}
		case commontemplates.Delete:
			if err := d.Client.Delete(ctx, &t); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("deleting template %s/%s: %w", t.Namespace, name, err)
			}
		}
	}
	return nil
}

func (d *Deployer) apply(ctx context.Context, t *templatev1.Template) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t)
	if err != nil {
		return fmt.Errorf("converting template %s: %w", t.Name, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(templatev1.GroupVersion.String())
	u.SetKind("Template")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "metadata", "resourceVersion")
	unstructured.RemoveNestedField(u.Object, "metadata", "uid")
	unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
	if err := d.Client.Patch(ctx, u, client.Apply, client.FieldOwner(d.FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying template %s/%s: %w", t.Namespace, t.Name, err)
	}
	return nil
}

// inSync tells whether an installed template holds what SSP sets: its
// labels and annotations, objects, parameters and message, so a resync
// applies nothing unchanged and reverts what someone edited.
func inSync(installed, desired *templatev1.Template) bool {
	for k, v := range desired.Labels {
		if installed.Labels[k] != v {
			return false
		}
	}
	for k, v := range desired.Annotations {
		if installed.Annotations[k] != v {
			return false
		}
	}
	if installed.Message != desired.Message {
		return false
	}
	return sameJSON(installed.Objects, desired.Objects) && sameJSON(installed.Parameters, desired.Parameters)
}

// sameJSON compares two values as JSON documents: a stored object comes
// back as raw bytes, a rendered one may be a Go object.
func sameJSON(a, b any) bool {
	var x, y any
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil || json.Unmarshal(ja, &x) != nil || json.Unmarshal(jb, &y) != nil {
		return false
	}
	return equality.Semantic.DeepEqual(x, y)
}
