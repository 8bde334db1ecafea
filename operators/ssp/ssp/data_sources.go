package ssp

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/virtflow/virtflow/operands/bootsources"
	"github.com/virtflow/virtflow/operands/commontemplates"
)

// DataSources is the component that keeps the boot sources: the
// DataSources the common templates clone and the DataImportCrons that
// fill them.
const DataSources = "data-sources"

// bootPlan is what the SSP CR asks of the boot-image namespace.
func bootPlan(owner client.Object) (bootsources.Plan, error) {
	u, ok := owner.(*unstructured.Unstructured)
	if !ok {
		return bootsources.Plan{}, fmt.Errorf("reading SSP %s: unexpected %T", owner.GetName(), owner)
	}
	cr := &sspv1beta3.SSP{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cr); err != nil {
		return bootsources.Plan{}, fmt.Errorf("reading SSP %s: %w", owner.GetName(), err)
	}
	opts, err := templateOptions(owner)
	if err != nil {
		return bootsources.Plan{}, err
	}
	return bootsources.New(cr, bootsources.Options{Namespace: opts.DataSourceNamespace, DataSourceNames: dataSourceNames(opts)}), nil
}

// dataSourceNames are the DATA_SOURCE_NAME defaults of the templates.
func dataSourceNames(opts commontemplates.Options) []string {
	var names []string
	for _, t := range commontemplates.Templates(opts) {
		for _, p := range t.Parameters {
			if p.Name == "DATA_SOURCE_NAME" && p.Value != "" {
				names = append(names, p.Value)
			}
		}
	}
	return names
}

// deployBootSources writes the plan: the namespace and its roles, each
// DataSource (taken over by its cron unless someone provided a claim of
// its name), the crons, and removes what the SSP no longer asks for.
func (d *Deployer) deployBootSources(ctx context.Context, owner client.Object) error {
	p, err := bootPlan(owner)
	if err != nil {
		return err
	}
	for _, obj := range []client.Object{p.Namespace, p.ViewRole, p.ViewRoleBinding, p.EditRole} {
		if err := d.applyObject(ctx, obj); err != nil {
			return err
		}
	}
	takenOver, err := d.writeDataSources(ctx, p)
	if err != nil {
		return err
	}
	kept := p.DataImportCrons(takenOver)
	if err := d.writeCrons(ctx, kept); err != nil {
		return err
	}
	return d.removeStale(ctx, p, kept)
}

func (d *Deployer) writeDataSources(ctx context.Context, p bootsources.Plan) (map[string]bool, error) {
	takenOver := map[string]bool{}
	for _, m := range p.DataSources {
		found := &cdiv1.DataSource{}
		err := d.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}, found)
		if apierrors.IsNotFound(err) {
			found = nil
		} else if err != nil {
			return nil, fmt.Errorf("reading DataSource %s/%s: %w", m.Namespace, m.Name, err)
		}
		take, err := bootsources.TakeOver(m, found, func() (bool, error) { return d.claimExists(ctx, m.Namespace, m.Name) })
		if err != nil {
			return nil, err
		}
		takenOver[m.Name] = take
		want := p.DataSource(m, take, found)
		if found == nil {
			err = d.Client.Create(ctx, want)
		} else if !equality.Semantic.DeepEqual(want, found) {
			err = d.Client.Update(ctx, want)
		}
		if client.IgnoreAlreadyExists(err) != nil {
			return nil, fmt.Errorf("writing DataSource %s/%s: %w", m.Namespace, m.Name, err)
		}
	}
	return takenOver, nil
}

func (d *Deployer) claimExists(ctx context.Context, ns, name string) (bool, error) {
	// The API server itself: a cache would watch every claim in the
	// cluster for a handful of names.
	var r client.Reader = d.Client
	if d.Reader != nil {
		r = d.Reader
	}
	err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &corev1.PersistentVolumeClaim{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading claim %s/%s: %w", ns, name, err)
	}
	return true, nil
}

// writeCrons creates missing crons; one whose spec changed is deleted, to
// be created anew on the next pass, as SSP does; one missing labels or
// annotations gets them.
func (d *Deployer) writeCrons(ctx context.Context, kept []cdiv1.DataImportCron) error {
	for i := range kept {
		want := &kept[i]
		found := &cdiv1.DataImportCron{}
		err := d.Client.Get(ctx, client.ObjectKeyFromObject(want), found)
		switch {
		case apierrors.IsNotFound(err):
			err = d.Client.Create(ctx, want)
		case err == nil && bootsources.CronMustBeReplaced(found, want):
			err = d.Client.Delete(ctx, found)
		case err == nil && !metadataHeld(found, want):
			found.Labels, found.Annotations = merged(found.Labels, want.Labels), merged(found.Annotations, want.Annotations)
			err = d.Client.Update(ctx, found)
		}
		if client.IgnoreNotFound(client.IgnoreAlreadyExists(err)) != nil {
			return fmt.Errorf("writing DataImportCron %s/%s: %w", want.Namespace, want.Name, err)
		}
	}
	return nil
}

// metadataHeld tells whether found carries every label and annotation of
// want.
func metadataHeld(found, want *cdiv1.DataImportCron) bool {
	for k, v := range want.Labels {
		if found.Labels[k] != v {
			return false
		}
	}
	for k, v := range want.Annotations {
		if found.Annotations[k] != v {
			return false
		}
	}
	return true
}

func merged(have, want map[string]string) map[string]string {
	out := make(map[string]string, len(have)+len(want))
	for k, v := range have {
		out[k] = v
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}

func (d *Deployer) removeStale(ctx context.Context, p bootsources.Plan, kept []cdiv1.DataImportCron) error {
	crons := &cdiv1.DataImportCronList{}
	if err := d.Client.List(ctx, crons); err != nil {
		return fmt.Errorf("listing DataImportCrons: %w", err)
	}
	sources := &cdiv1.DataSourceList{}
	if err := d.Client.List(ctx, sources, client.InNamespace(p.Namespace.Name)); err != nil {
		return fmt.Errorf("listing DataSources: %w", err)
	}
	var stale []client.Object
	for _, c := range p.StaleDataImportCrons(crons.Items, kept) {
		stale = append(stale, c.DeepCopy())
	}
	for _, ds := range p.StaleDataSources(sources.Items) {
		stale = append(stale, ds.DeepCopy())
	}
	for _, obj := range stale {
		if err := d.Client.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("removing %s: %w", obj.GetName(), err)
		}
	}
	return nil
}

// probeBootSources passes once every DataSource and every wanted cron
// exists; imports go on in their own time, as with upstream, and show in
// the crons' status.
func (d *Deployer) probeBootSources(ctx context.Context, owner client.Object) error {
	p, err := bootPlan(owner)
	if err != nil {
		return err
	}
	// A DataSource its cron keeps carries the cron's label; the others'
	// crons are not wanted.
	takenOver := map[string]bool{}
	for _, m := range p.DataSources {
		ds := &cdiv1.DataSource{}
		if err := d.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}, ds); err != nil {
			return fmt.Errorf("%s: DataSource %s/%s: %w", DataSources, m.Namespace, m.Name, err)
		}
		_, takenOver[m.Name] = ds.Labels[bootsources.DataImportCronLabel]
	}
	for _, c := range p.DataImportCrons(takenOver) {
		if err := d.Client.Get(ctx, client.ObjectKeyFromObject(&c), &cdiv1.DataImportCron{}); err != nil {
			return fmt.Errorf("%s: DataImportCron %s/%s: %w", DataSources, c.Namespace, c.Name, err)
		}
	}
	return nil
}

// undeployBootSources removes the crons, DataSources and roles the SSP
// owns; the namespace and the imported claims, someone's data, stay.
func (d *Deployer) undeployBootSources(ctx context.Context, owner client.Object) error {
	p, err := bootPlan(owner)
	if err != nil {
		return err
	}
	p.DataSources = nil
	if err := d.removeStale(ctx, p, nil); err != nil {
		return err
	}
	for _, obj := range []client.Object{p.ViewRoleBinding, p.ViewRole, p.EditRole} {
		if err := d.Client.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("removing %s: %w", obj.GetName(), err)
		}
	}
	return nil
}

// applyObject server-side applies a typed object.
func (d *Deployer) applyObject(ctx context.Context, obj client.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("converting %s: %w", obj.GetName(), err)
	}
	u := &unstructured.Unstructured{Object: m}
	gvk, err := apiutil.GVKForObject(obj, d.Client.Scheme())
	if err != nil {
		return fmt.Errorf("typing %s: %w", obj.GetName(), err)
	}
	u.SetGroupVersionKind(gvk)
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	if err := d.Client.Patch(ctx, u, client.Apply, client.FieldOwner(d.FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}
