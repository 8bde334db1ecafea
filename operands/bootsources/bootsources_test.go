package bootsources

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
)

const bootNS = "virtflow-os-images"

func dict(name, namespace, dataSource string, annotations map[string]string) sspv1beta3.DataImportCronTemplate {
	url := "docker://quay.io/containerdisks/" + dataSource + ":latest"
	return sspv1beta3.DataImportCronTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: annotations, Labels: map[string]string{"own": "label"}},
		Spec: cdiv1beta1.DataImportCronSpec{
			ManagedDataSource: dataSource, Schedule: "0 */12 * * *",
			Template: cdiv1beta1.DataVolume{Spec: cdiv1beta1.DataVolumeSpec{
				Source: &cdiv1beta1.DataVolumeSource{Registry: &cdiv1beta1.DataVolumeSourceRegistry{URL: &url}},
			}},
		},
	}
}

func newSSP(labels map[string]string, dicts ...sspv1beta3.DataImportCronTemplate) *sspv1beta3.SSP {
	return &sspv1beta3.SSP{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt-hyperconverged", Name: "ssp-kubevirt-hyperconverged", Labels: labels},
		Spec:       sspv1beta3.SSPSpec{CommonTemplates: sspv1beta3.CommonTemplates{Namespace: "openshift", DataImportCronTemplates: dicts}},
	}
}

var hcoLabels = map[string]string{LabelAppPartOf: "hyperconverged-cluster", LabelAppVersion: "1.2.3", "other": "x"}

func wantOwner(t *testing.T, obj metav1.Object) {
	t.Helper()
	require.Equal(t, "kubevirt-hyperconverged/ssp-kubevirt-hyperconverged", obj.GetAnnotations()[OwnerAnnotation], obj.GetName())
	require.Equal(t, "SSP.ssp.kubevirt.io", obj.GetAnnotations()[OwnerTypeAnnotation], obj.GetName())
	require.Empty(t, obj.GetOwnerReferences(), obj.GetName())
}

func wantAppLabels(t *testing.T, obj metav1.Object) {
	t.Helper()
	require.Equal(t, map[string]string{
		LabelAppName: "data-sources", LabelAppComponent: "templating", LabelAppManagedBy: "ssp-operator",
		LabelAppPartOf: "hyperconverged-cluster", LabelAppVersion: "1.2.3",
	}, obj.GetLabels(), obj.GetName())
}

func TestNamespaceAndRoles(t *testing.T) {
	p := New(newSSP(hcoLabels), Options{Namespace: bootNS})
	require.Equal(t, bootNS, p.Namespace.Name)
	require.Equal(t, "Namespace", p.Namespace.Kind)
	require.Equal(t, ViewRoleName, p.ViewRole.Name)
	require.Equal(t, bootNS, p.ViewRole.Namespace)
	require.Equal(t, "os-images.kubevirt.io:view", p.ViewRoleBinding.Name)
	require.Equal(t, bootNS, p.ViewRoleBinding.Namespace)
	require.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: ViewRoleName}, p.ViewRoleBinding.RoleRef)
	require.Equal(t, []rbacv1.Subject{
		{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "system:authenticated"},
		{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "system:serviceaccounts"},
	}, p.ViewRoleBinding.Subjects)
	require.Equal(t, "os-images.kubevirt.io:edit", p.EditRole.Name)
	require.Empty(t, p.EditRole.Namespace)
	for _, obj := range []metav1.Object{p.Namespace, p.ViewRole, p.ViewRoleBinding, p.EditRole} {
		wantOwner(t, obj)
		wantAppLabels(t, obj)
	}

	cases := []struct {
		rules    []rbacv1.PolicyRule
		resource string
		verbs    []string
	}{
		{p.ViewRole.Rules, "persistentvolumeclaims", []string{"get", "list", "watch"}},
		{p.ViewRole.Rules, "datavolumes/source", []string{"create"}},
		{p.ViewRole.Rules, "datasources", []string{"get", "list", "watch"}},
		{p.ViewRole.Rules, "volumesnapshots", []string{"get", "list", "watch"}},
		{p.ViewRole.Rules, "namespaces", []string{"get", "list", "watch"}},
		{p.EditRole.Rules, "datasources", []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
		{p.EditRole.Rules, "persistentvolumeclaims/status", []string{"get", "list", "watch"}},
		{p.EditRole.Rules, "dataimportcrons", []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
	}
	for _, c := range cases {
		found := false
		for _, r := range c.rules {
			for _, res := range r.Resources {
				if res == c.resource {
					found = true
					require.Equal(t, c.verbs, r.Verbs, c.resource)
				}
			}
		}
		require.True(t, found, c.resource)
	}
	require.Len(t, p.ViewRole.Rules, 7)
	require.Len(t, p.EditRole.Rules, 6)
}

func TestSSPLabelsCopiedOnlyWhenTheSSPHasLabels(t *testing.T) {
	cases := []struct {
		name   string
		labels map[string]string
		want   map[string]string
	}{
		{"none", nil, map[string]string{}},
		{"some", map[string]string{"x": "y"}, map[string]string{LabelAppPartOf: "", LabelAppVersion: ""}},
		{"hco", hcoLabels, map[string]string{LabelAppPartOf: "hyperconverged-cluster", LabelAppVersion: "1.2.3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := New(newSSP(c.labels), Options{Namespace: bootNS}).Namespace.Labels
			for _, k := range []string{LabelAppPartOf, LabelAppVersion} {
				v, ok := l[k]
				want, wantOK := c.want[k]
				require.Equal(t, wantOK, ok, k)
				require.Equal(t, want, v, k)
			}
			require.NotContains(t, l, "x", "other SSP labels are not copied")
		})
	}
}

func TestDataSourcesAndCronsPlanned(t *testing.T) {
	ssp := newSSP(hcoLabels,
		dict("fedora-image-cron", "", "fedora", map[string]string{ArchitecturesAnnotation: "amd64", "cdi.kubevirt.io/storage.bind.immediate.requested": "true"}),
		dict("my-cron", "other", "mine", nil),
		dict("centos-stream9-image-cron", bootNS, "centos-stream9", nil),
		dict("elsewhere", "other", "fedora", nil),
	)
	p := New(ssp, Options{Namespace: bootNS, DataSourceNames: []string{"win2k22", "fedora", "centos-stream9", "fedora"}})
	require.Equal(t, []ManagedDataSource{
		{Namespace: bootNS, Name: "centos-stream9", Cron: "centos-stream9-image-cron"},
		{Namespace: bootNS, Name: "fedora", Cron: "fedora-image-cron"},
		{Namespace: bootNS, Name: "win2k22"},
	}, p.DataSources, "one per OS name, sorted; a cron in another namespace does not manage it")

	var got []string
	for _, c := range p.Crons {
		got = append(got, c.Namespace+"/"+c.Name)
	}
	require.Equal(t, []string{"other/elsewhere", "other/my-cron", bootNS + "/centos-stream9-image-cron", bootNS + "/fedora-image-cron"}, got)
	fedora := p.Crons[3]
	require.Equal(t, "DataImportCron", fedora.Kind)
	require.Equal(t, ssp.Spec.CommonTemplates.DataImportCronTemplates[0].Spec, fedora.Spec)
	require.NotContains(t, fedora.Annotations, ArchitecturesAnnotation)
	require.Equal(t, "true", fedora.Annotations["cdi.kubevirt.io/storage.bind.immediate.requested"])
	require.Equal(t, "label", fedora.Labels["own"], "the template's labels stay")
	require.Equal(t, "data-sources", fedora.Labels[LabelAppName])
	require.Equal(t, "1.2.3", fedora.Labels[LabelAppVersion])
	wantOwner(t, &fedora)
	require.Contains(t, ssp.Spec.CommonTemplates.DataImportCronTemplates[0].Annotations, ArchitecturesAnnotation, "the SSP is not written to")
	require.Empty(t, ssp.Spec.CommonTemplates.DataImportCronTemplates[0].Namespace)
}

func TestLaterTemplateForOneDataSourceWins(t *testing.T) {
	p := New(newSSP(nil, dict("a", "", "fedora", nil), dict("b", "", "fedora", nil)), Options{Namespace: bootNS, DataSourceNames: []string{"fedora"}})
	require.Len(t, p.Crons, 1)
	require.Equal(t, "b", p.Crons[0].Name)
	require.Equal(t, "b", p.DataSources[0].Cron)
}

func TestOwns(t *testing.T) {
	p := New(newSSP(nil), Options{Namespace: bootNS})
	cases := []struct {
		name        string
		annotations map[string]string
		want        bool
	}{
		{"ours", map[string]string{OwnerAnnotation: "kubevirt-hyperconverged/ssp-kubevirt-hyperconverged", OwnerTypeAnnotation: "SSP.ssp.kubevirt.io"}, true},
		{"another SSP", map[string]string{OwnerAnnotation: "x/other", OwnerTypeAnnotation: "SSP.ssp.kubevirt.io"}, false},
		{"another kind", map[string]string{OwnerAnnotation: "kubevirt-hyperconverged/ssp-kubevirt-hyperconverged", OwnerTypeAnnotation: "CDI.cdi.kubevirt.io"}, false},
		{"unmarked", nil, false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, p.Owns(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: c.annotations}}), c.name)
	}
}
