package commontemplates

import (
	"strings"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
)

// TestEveryTemplateCarriesUpstreamsAnnotations checks the console-facing
// annotations of every template.
func TestEveryTemplateCarriesUpstreamsAnnotations(t *testing.T) {
	got := byName(Templates(Options{}))
	for name, e := range expectedTemplates(allCases()) {
		a := got[name].Annotations
		require.Equal(t, e.c.displayName, a["openshift.io/display-name"], name)
		require.Equal(t, e.c.icon, a["iconClass"], name)
		require.NotEmpty(t, a["description"], name)
		require.True(t, strings.HasPrefix(a["tags"], "hidden,kubevirt,virtualmachine,"), name)
		require.Equal(t, "KubeVirt", a["openshift.io/provider-display-name"], name)
		require.Equal(t, "https://github.com/kubevirt/common-templates", a["openshift.io/documentation-url"], name)
		require.Equal(t, "https://github.com/kubevirt/common-templates/issues", a["openshift.io/support-url"], name)
		require.Equal(t, "false", a["template.openshift.io/bindable"], name)
		require.Equal(t, "v1alpha1", a["template.kubevirt.io/version"], name)
		require.Equal(t, "rootdisk", a["defaults.template.kubevirt.io/disk"], name)
		for _, id := range e.c.osIDs {
			require.Equal(t, e.c.osName, a["name.os.template.kubevirt.io/"+id], name)
		}
		editable := strings.Split(strings.TrimSuffix(a["template.kubevirt.io/editable"], "\n"), "\n")
		require.Contains(t, editable, "/objects[0].spec.template.spec.domain.cpu.cores", name)
		require.Contains(t, editable, "/objects[0].spec.template.spec.domain.memory.guest", name)
		require.Equal(t, !e.c.windows, contains(editable, "/objects[0].spec.template.spec.domain.cpu.sockets"), name)
		if e.c.windows {
			require.Equal(t, "default", a["defaults.template.kubevirt.io/network"], name)
		} else {
			require.NotContains(t, a, "defaults.template.kubevirt.io/network", name)
		}
		require.Equal(t, e.c.os == "centos6", a["template.kubevirt.io/deprecated"] == "true", name)
		require.NotContains(t, a, "template.kubevirt.io/provider", name)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestImageAnnotationsListOneEntryALine checks the image list annotations
// and where upstream leaves them out.
func TestImageAnnotationsListOneEntryALine(t *testing.T) {
	got := byName(Templates(Options{}))
	require.Equal(t, "registry.redhat.io/rhel9/rhel-guest-image\n", got["rhel9-server-small"].Annotations[AnnotationContainerDisks])
	require.Equal(t, "quay.io/containerdisks/fedora:latest\nquay.io/containerdisks/fedora:40\nquay.io/containerdisks/fedora:41\nquay.io/containerdisks/fedora:42\n",
		got["fedora-server-small"].Annotations[AnnotationContainerDisks])
	require.Len(t, strings.Split(strings.TrimSuffix(got["ubuntu-desktop-large"].Annotations[AnnotationImages], "\n"), "\n"), 7)
	require.Equal(t, DefaultTestGuestImage+"\n", got["virtflow-test-guest-server-tiny"].Annotations[AnnotationContainerDisks])
	for _, name := range []string{"rhel7-server-small", "opensuse-server-small", "centos6-server-small", "windows10-desktop-medium"} {
		require.NotContains(t, got[name].Annotations, AnnotationContainerDisks, name)
	}
	for _, name := range []string{"centos6-server-small", "windows2k22-server-medium", "virtflow-test-guest-server-small"} {
		require.NotContains(t, got[name].Annotations, AnnotationImages, name)
	}
}

func param(t *testing.T, tp templatev1.Template, name string) templatev1.Parameter {
	t.Helper()
	for _, p := range tp.Parameters {
		if p.Name == name {
			return p
		}
	}
	require.Failf(t, "missing parameter", "%s has no %s", tp.Name, name)
	return templatev1.Parameter{}
}

// TestEveryTemplateHasUpstreamsParameters checks the parameters of every
// template, in order.
func TestEveryTemplateHasUpstreamsParameters(t *testing.T) {
	got := byName(Templates(Options{}))
	for name, e := range expectedTemplates(allCases()) {
		tp := got[name]
		names := []string{"NAME", "DATA_SOURCE_NAME", "DATA_SOURCE_NAMESPACE"}
		if e.c.cloudUser != "" {
			names = append(names, "CLOUD_USER_PASSWORD")
		}
		var have []string
		for _, p := range tp.Parameters {
			have = append(have, p.Name)
		}
		require.Equal(t, names, have, name)
		n := param(t, tp, "NAME")
		require.Equal(t, "expression", n.Generate, name)
		require.Equal(t, e.c.nameFrom, n.From, name)
		require.Equal(t, e.c.dataSource, param(t, tp, "DATA_SOURCE_NAME").Value, name)
		require.Equal(t, "openshift-virtualization-os-images", param(t, tp, "DATA_SOURCE_NAMESPACE").Value, name)
		if e.c.cloudUser != "" {
			pw := param(t, tp, "CLOUD_USER_PASSWORD")
			require.Equal(t, "expression", pw.Generate, name)
			require.Equal(t, "[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}", pw.From, name)
			require.Equal(t, "Randomized password for the cloud-init user "+e.c.cloudUser, pw.Description, name)
		}
	}
}

// TestOptionsReachEveryTemplate checks that each option changes every
// template it should.
func TestOptionsReachEveryTemplate(t *testing.T) {
	ts := Templates(Options{
		Version: "v0.35.0", Namespace: "vm-templates", DataSourceNamespace: KubeVirtDataSourceNamespace,
		TestGuestImage: "registry.local/test-guest:v2",
		Provider:       &Provider{Name: "Virtflow", SupportLevel: "Community", URL: "https://virtflow.example"},
		SSPLabels:      map[string]string{"app.kubernetes.io/part-of": "hyperconverged-cluster", "app.kubernetes.io/version": "1.2.3"},
	})
	for _, tp := range ts {
		require.Equal(t, "vm-templates", tp.Namespace)
		require.Equal(t, "v0.35.0", tp.Labels["template.kubevirt.io/version"])
		require.Equal(t, "hyperconverged-cluster", tp.Labels["app.kubernetes.io/part-of"])
		require.Equal(t, "1.2.3", tp.Labels["app.kubernetes.io/version"])
		require.Equal(t, "kubevirt-os-images", param(t, tp, "DATA_SOURCE_NAMESPACE").Value)
		require.Equal(t, "Virtflow", tp.Annotations["template.kubevirt.io/provider"])
		require.Equal(t, "Community", tp.Annotations["template.kubevirt.io/provider-support-level"])
		require.Equal(t, "https://virtflow.example", tp.Annotations["template.kubevirt.io/provider-url"])
		require.Equal(t, "v0.35.0", decodeVM(t, tp).Labels["vm.kubevirt.io/template.version"])
	}
	guest := byName(ts)["virtflow-test-guest-server-small"]
	require.Equal(t, "registry.local/test-guest:v2", decodeVM(t, guest).Spec.Template.Spec.Domain.Firmware.KernelBoot.Container.Image)
}

// TestSSPCopiesPartOfAndVersionOnlyWhenItHasLabels mirrors SSP copying even
// missing instance labels, as empty values.
func TestSSPCopiesPartOfAndVersionOnlyWhenItHasLabels(t *testing.T) {
	tp := Templates(Options{})[0]
	require.NotContains(t, tp.Labels, "app.kubernetes.io/part-of")
	require.NotContains(t, tp.Labels, "app.kubernetes.io/version")
	tp = Templates(Options{SSPLabels: map[string]string{"other": "x"}})[0]
	require.Equal(t, "", tp.Labels["app.kubernetes.io/part-of"])
	require.Contains(t, tp.Labels, "app.kubernetes.io/version")
}

// TestTemplatesAreTypedAndNamespaced checks the type meta an apply needs.
func TestTemplatesAreTypedAndNamespaced(t *testing.T) {
	for _, tp := range Templates(Options{}) {
		require.Equal(t, "template.openshift.io/v1", tp.APIVersion)
		require.Equal(t, "Template", tp.Kind)
		require.Equal(t, "openshift", tp.Namespace)
		require.Len(t, tp.Objects, 1, tp.Name)
	}
}
