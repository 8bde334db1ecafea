package ssp

import (
	"context"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operands/commontemplates"
)

func sspCR(ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ssp.kubevirt.io/v1beta3", "kind": "SSP",
		"metadata": map[string]any{"name": "ssp", "namespace": "kubevirt-hyperconverged"},
		"spec":     map[string]any{"commonTemplates": map[string]any{"namespace": ns}},
	}}
	return u
}

// templatesDeployer counts the patches it sends.
func templatesDeployer(t *testing.T, patches *int, objs ...client.Object) (*Deployer, client.Client) {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			*patches++
			return c.Patch(ctx, obj, p, opts...)
		},
	}).Build()
	return &Deployer{Workloads: &workloads.Workloads{Client: c, FieldOwner: "ssp-operator"}}, c
}

func TestCommonTemplatesAreInstalledOnceAndProbed(t *testing.T) {
	var patches int
	d, c := templatesDeployer(t, &patches)
	ctx, owner := context.Background(), sspCR("openshift")
	want := len(commontemplates.Templates(commontemplates.Options{}))
	require.EqualError(t, d.Probe(ctx, owner, CommonTemplates), "common-templates: 0 of 93 templates installed in openshift")
	require.NoError(t, d.Deploy(ctx, owner, CommonTemplates))
	want += 2 // the shared viewer Role and RoleBinding
	require.Equal(t, want, patches)
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "openshift"}, &corev1.Namespace{}), "the templates' namespace is created")
	binding := &rbacv1.RoleBinding{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "openshift", Name: sharedViewerBinding}, binding))
	require.Equal(t, "system:authenticated", binding.Subjects[0].Name, "anyone authenticated reads the common templates, as on OpenShift")
	require.NoError(t, d.Probe(ctx, owner, CommonTemplates))

	tmpl := &templatev1.Template{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "openshift", Name: "virtflow-test-guest-server-small"}, tmpl))
	require.Equal(t, "true", tmpl.Labels["os.template.kubevirt.io/virtflow-test-guest"])
	ns := ""
	for _, p := range tmpl.Parameters {
		if p.Name == "DATA_SOURCE_NAMESPACE" {
			ns = p.Value
		}
	}
	require.Equal(t, DefaultBootImageNamespace, ns, "DataSources are looked up where the boot sources live")

	require.NoError(t, d.Deploy(ctx, owner, CommonTemplates))
	require.Equal(t, want, patches, "a resync applies nothing unchanged")

	tmpl.Parameters[0].Value = "edited"
	require.NoError(t, c.Update(ctx, tmpl))
	require.EqualError(t, d.Probe(ctx, owner, CommonTemplates), "common-templates: 92 of 93 templates installed in openshift")
	require.NoError(t, d.Deploy(ctx, owner, CommonTemplates))
	require.Equal(t, want+1, patches, "an edited template is put back, and only it")
	require.NoError(t, d.Probe(ctx, owner, CommonTemplates))

	require.NoError(t, d.Undeploy(ctx, owner, CommonTemplates))
	list := &templatev1.TemplateList{}
	require.NoError(t, c.List(ctx, list, client.InNamespace("openshift")))
	require.Empty(t, list.Items)
	require.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(binding), binding)))
}

func TestAnOlderTemplateIsDeprecatedNotRemoved(t *testing.T) {
	old := &templatev1.Template{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift", Name: "fedora-server-small-v0.20.0",
		Labels: map[string]string{commontemplates.LabelType: commontemplates.TypeBase, commontemplates.LabelVersion: "v0.20.0",
			"os.template.kubevirt.io/fedora36": "true", "workload.template.kubevirt.io/server": "true", "flavor.template.kubevirt.io/small": "true"}}}
	var patches int
	d, c := templatesDeployer(t, &patches, old)
	require.NoError(t, d.Deploy(context.Background(), sspCR("openshift"), CommonTemplates))
	got := &templatev1.Template{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(old), got))
	require.Equal(t, "true", got.Labels[commontemplates.LabelDeprecated])
	require.NotContains(t, got.Labels, "os.template.kubevirt.io/fedora36", "a deprecated template is not offered for an OS any more")
	rv := got.ResourceVersion
	require.NoError(t, d.Deploy(context.Background(), sspCR("openshift"), CommonTemplates))
	require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(old), got))
	require.Equal(t, rv, got.ResourceVersion, "a deprecated template is left alone")
}

func TestTemplatesFollowTheBootImageNamespaceHCONames(t *testing.T) {
	owner := sspCR("templates")
	// A user's own cron, sorting first, names its own namespace: it does
	// not move the boot sources.
	require.NoError(t, unstructured.SetNestedSlice(owner.Object, []any{
		map[string]any{"metadata": map[string]any{"name": "alpine-cron", "namespace": "team-a"}},
	}, "spec", "commonTemplates", "dataImportCronTemplates"))
	opts, err := templateOptions(owner)
	require.NoError(t, err)
	require.Equal(t, "templates", opts.Namespace)
	require.Equal(t, DefaultBootImageNamespace, opts.DataSourceNamespace)
	owner.SetAnnotations(map[string]string{"ssp.virtflow.io/boot-image-namespace": "images"})
	opts, err = templateOptions(owner)
	require.NoError(t, err)
	require.Equal(t, "images", opts.DataSourceNamespace)
	_, err = templateOptions(sspCR(""))
	require.EqualError(t, err, "spec.commonTemplates.namespace is empty")
}

func TestTheValidatorRunsTheReplicasTheSSPAsksFor(t *testing.T) {
	owner := sspCR("openshift")
	objs, err := Install{Namespace: "kubevirt-hyperconverged", Image: "img"}.Render(context.Background(), nil, owner, Validator)
	require.NoError(t, err)
	require.EqualValues(t, 1, *objs[0].(*appsv1.Deployment).Spec.Replicas, "one unless asked, as upstream")
	require.NoError(t, unstructured.SetNestedField(owner.Object, int64(2), "spec", "templateValidator", "replicas"))
	objs, err = Install{Namespace: "kubevirt-hyperconverged", Image: "img"}.Render(context.Background(), nil, owner, Validator)
	require.NoError(t, err)
	require.EqualValues(t, 2, *objs[0].(*appsv1.Deployment).Spec.Replicas)
}

// As upstream, the validator may only read templates and VMs.
func TestTheValidatorOnlyReadsTemplatesAndVMs(t *testing.T) {
	objs, err := Install{Namespace: "kubevirt-hyperconverged", Image: "img"}.Render(context.Background(), nil, sspCR("openshift"), Validator)
	require.NoError(t, err)
	var role *rbacv1.ClusterRole
	var binding *rbacv1.ClusterRoleBinding
	for _, o := range objs {
		switch v := o.(type) {
		case *rbacv1.ClusterRole:
			role = v
		case *rbacv1.ClusterRoleBinding:
			binding = v
		}
	}
	require.NotNil(t, role)
	require.Equal(t, "template:view", binding.RoleRef.Name)
	require.Equal(t, "template-validator", binding.Subjects[0].Name)
	for _, r := range role.Rules {
		require.Equal(t, []string{"get", "list", "watch"}, r.Verbs)
	}
}
