package commontemplates

import (
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// installedTemplate is a common template of some release as found in the
// cluster.
func installedTemplate(name, version string, extra map[string]string) templatev1.Template {
	l := map[string]string{
		"os.template.kubevirt.io/fedora38":        "true",
		"workload.template.kubevirt.io/server":    "true",
		"flavor.template.kubevirt.io/small":       "true",
		"template.kubevirt.io/type":               "base",
		"template.kubevirt.io/version":            version,
		"template.kubevirt.io/default-os-variant": "true",
	}
	for k, v := range extra {
		l[k] = v
	}
	return templatev1.Template{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "openshift", Labels: l,
		Annotations: map[string]string{"openshift.io/display-name": "Fedora VM"},
	}}
}

// TestOlderTemplatesAreDeprecated an older release's template loses its
// selection labels and gains the deprecated label and annotation, as SSP
// leaves it.
func TestOlderTemplatesAreDeprecated(t *testing.T) {
	old := installedTemplate("fedora38-server-small", "v0.29.1", nil)
	require.Equal(t, Deprecate, FateOf(&old, nil, Options{}))

	got := Deprecated(&old, Options{})
	require.Equal(t, map[string]string{
		"template.kubevirt.io/type":               "base",
		"template.kubevirt.io/version":            "v0.29.1",
		"template.kubevirt.io/default-os-variant": "true",
		"template.kubevirt.io/deprecated":         "true",
		"app.kubernetes.io/name":                  "common-templates",
		"app.kubernetes.io/component":             "templating",
		"app.kubernetes.io/managed-by":            "ssp-operator",
	}, got.Labels)
	require.Equal(t, "true", got.Annotations["template.kubevirt.io/deprecated"])
	require.Equal(t, "Fedora VM", got.Annotations["openshift.io/display-name"])
	require.Equal(t, "v0.29.1", old.Labels["template.kubevirt.io/version"], "the input is not modified")
	require.Contains(t, old.Labels, "os.template.kubevirt.io/fedora38", "the input is not modified")
}

// TestDeprecationCopiesSSPsInstanceLabels deprecation sets the same app
// labels SSP sets on what it reconciles.
func TestDeprecationCopiesSSPsInstanceLabels(t *testing.T) {
	got := DeprecatedLabels(map[string]string{"flavor.template.kubevirt.io/tiny": "true"},
		Options{SSPLabels: map[string]string{"app.kubernetes.io/part-of": "hyperconverged-cluster"}})
	require.Equal(t, "hyperconverged-cluster", got["app.kubernetes.io/part-of"])
	require.NotContains(t, got, "flavor.template.kubevirt.io/tiny")
	require.Equal(t, "true", got["template.kubevirt.io/deprecated"])
}

// TestDeprecatingANilAnnotatedTemplate a template without labels or
// annotations can be deprecated (SSP would panic on it).
func TestDeprecatingANilAnnotatedTemplate(t *testing.T) {
	bare := templatev1.Template{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}
	got := Deprecated(&bare, Options{})
	require.Equal(t, "true", got.Annotations["template.kubevirt.io/deprecated"])
	require.Equal(t, "true", got.Labels["template.kubevirt.io/deprecated"])
}

// TestFateFollowsSSP is SSP's decision table for installed templates the
// release does not install.
func TestFateFollowsSSP(t *testing.T) {
	installing := map[string]bool{"rhel9-server-small": true}
	deleting := installedTemplate("gone", "v0.20.0", nil)
	deleting.DeletionTimestamp = &metav1.Time{}
	notBase := installedTemplate("custom", "v0.20.0", map[string]string{"template.kubevirt.io/type": "vm"})
	cases := []struct {
		name string
		t    templatev1.Template
		want Fate
	}{
		{"shipped by this release", installedTemplate("rhel9-server-small", "v0.30.0", nil), Keep},
		{"older", installedTemplate("a", "v0.33.0", nil), Deprecate},
		{"older patch", installedTemplate("a", "v0.34.0", nil), Deprecate},
		{"older, tolerant form", installedTemplate("a", "0.34", nil), Deprecate},
		{"pre-release of this release", installedTemplate("a", "v0.34.1-rc.1", nil), Deprecate},
		{"same release", installedTemplate("a", "v0.34.1", nil), Keep},
		{"newer release", installedTemplate("a", "v0.35.0", nil), Keep},
		{"newer, tolerant form", installedTemplate("a", " v1 ", nil), Keep},
		{"unreadable version", installedTemplate("a", "devel", nil), Deprecate},
		{"no version", installedTemplate("a", "", nil), Deprecate},
		{"other architecture", installedTemplate("a-s390x", "v0.33.0", map[string]string{"template.kubevirt.io/architecture": "s390x"}), Delete},
		{"unknown architecture", installedTemplate("a-x", "v0.35.0", map[string]string{"template.kubevirt.io/architecture": "sparc"}), Delete},
		{"our architecture", installedTemplate("a", "v0.33.0", map[string]string{"template.kubevirt.io/architecture": "amd64"}), Deprecate},
		{"being deleted", deleting, Keep},
		{"not a common template", notBase, Keep},
	}
	for _, c := range cases {
		require.Equal(t, c.want, FateOf(&c.t, installing, Options{}), c.name)
	}
	unordered := installedTemplate("a", "v0.1.0", nil)
	require.Equal(t, Keep, FateOf(&unordered, nil, Options{Version: "devel"}), "nothing orders against an unreadable release")
}

// TestRetireSplitsInstalledTemplates runs the rule over a namespace's worth
// of templates.
func TestRetireSplitsInstalledTemplates(t *testing.T) {
	current := Templates(Options{})
	installed := []templatev1.Template{
		current[0],
		installedTemplate("fedora38-server-small", "v0.29.1", nil),
		installedTemplate("fedora-server-small-arm64", "v0.34.1", map[string]string{"template.kubevirt.io/architecture": "arm64"}),
		installedTemplate("future-server-small", "v0.40.0", nil),
	}
	deprecated, deleted := Retire(installed, Options{})
	require.Len(t, deprecated, 1)
	require.Equal(t, "fedora38-server-small", deprecated[0].Name)
	require.Equal(t, "true", deprecated[0].Labels["template.kubevirt.io/deprecated"])
	require.Len(t, deleted, 1)
	require.Equal(t, "fedora-server-small-arm64", deleted[0].Name)
}

// TestVersionOrder checks the semantic-version order SSP compares template
// versions by.
func TestVersionOrder(t *testing.T) {
	ordered := []string{"v0.9.0", "v0.29.1", "v0.34.0", "v0.34.1-alpha", "v0.34.1-alpha.1", "v0.34.1-alpha.beta", "v0.34.1-rc.2", "v0.34.1-rc.10", "v0.34.1", "v1.0.0"}
	for i := range ordered {
		for j := range ordered {
			a, ok := parseVersion(ordered[i])
			require.True(t, ok, ordered[i])
			b, ok := parseVersion(ordered[j])
			require.True(t, ok, ordered[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			require.Equal(t, want, a.compare(b), "%s vs %s", ordered[i], ordered[j])
		}
	}
	for _, bad := range []string{"", "devel", "v1.2.3.4", "v1.2-rc", "v1.x.0", "v1.2.3-", "v1.2.3-a..b"} {
		_, ok := parseVersion(bad)
		require.False(t, ok, bad)
	}
	v, ok := parseVersion("v0.34.1+build.5")
	require.True(t, ok)
	w, _ := parseVersion("0.34.1")
	require.Zero(t, v.compare(w), "build metadata does not order")
}
