package operands

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

const (
	centos9   = "centos-stream9-image-cron"
	centos10  = "centos-stream10-image-cron"
	fedora    = "fedora-image-cron"
	testGuest = TestGuestDICTName
)

func strPtr(s string) *string { return &s }
func boolPtr(b bool) *bool    { return &b }

// customDICT is a template as a user writes it in the HyperConverged.
func customDICT(name, dataSource, url string, annotations map[string]string) hcov1beta1.DataImportCronTemplate {
	return hcov1beta1.DataImportCronTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec: &hcov1beta1.DataImportCronSpec{
			ManagedDataSource: dataSource, Schedule: "5 5 * * *",
			Template: hcov1beta1.DataVolumeTemplate{Spec: hcov1beta1.DataVolumeSpec{
				Source: &hcov1beta1.DataVolumeSource{Registry: &hcov1beta1.DataVolumeSourceRegistry{URL: strPtr(url)}},
			}},
		},
	}
}

func disabled(name string) hcov1beta1.DataImportCronTemplate {
	return hcov1beta1.DataImportCronTemplate{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: map[string]string{DataImportCronEnabledAnnotation: "False"},
	}}
}

func names(list []hcov1beta1.DataImportCronTemplateStatus) []string {
	var out []string
	for _, d := range list {
		out = append(out, d.Name)
	}
	return out
}

func byName(t *testing.T, list []hcov1beta1.DataImportCronTemplateStatus, name string) hcov1beta1.DataImportCronTemplateStatus {
	t.Helper()
	for _, d := range list {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no template %s in %v", name, names(list))
	return hcov1beta1.DataImportCronTemplateStatus{}
}

func TestBuiltInDICTsAsHCOShipsThem(t *testing.T) {
	cases := []struct {
		name, dataSource, url, size, archs string
	}{
		{centos10, "centos-stream10", "docker://quay.io/containerdisks/centos-stream:10", "10Gi", "amd64,arm64,s390x"},
		{centos9, "centos-stream9", "docker://quay.io/containerdisks/centos-stream:9", "10Gi", "amd64,arm64,s390x"},
		{fedora, "fedora", "docker://quay.io/containerdisks/fedora:latest", "5Gi", "arm64,s390x,amd64"},
		{testGuest, "virtflow-test-guest", "docker://registry.virtflow.local:5000/virtflow/test-guest:latest", "64Mi", "amd64"},
	}
	list := DataImportCronTemplates(newHC(), metav1.Time{})
	require.Equal(t, []string{centos10, centos9, fedora, testGuest}, names(list), "sorted by name")
	for _, c := range cases {
		d := byName(t, list, c.name)
		require.True(t, d.Status.CommonTemplate, c.name)
		require.False(t, d.Status.Modified, c.name)
		require.Empty(t, d.Namespace, "SSP picks the namespace: %s", c.name)
		require.Equal(t, c.dataSource, d.Spec.ManagedDataSource)
		require.Equal(t, c.url, *d.Spec.Template.Spec.Source.Registry.URL)
		require.Equal(t, "0 */12 * * *", d.Spec.Schedule)
		require.Equal(t, hcov1beta1.DataImportCronGarbageCollect("Outdated"), *d.Spec.GarbageCollect)
		require.Equal(t, hcov1beta1.DataImportCronRetentionPolicy("None"), *d.Spec.RetentionPolicy)
		require.Equal(t, int32(1), *d.Spec.ImportsToKeep)
		size := d.Spec.Template.Spec.Storage.Resources.Requests[corev1.ResourceStorage]
		require.Equal(t, c.size, size.String())
		require.Equal(t, c.archs, d.Annotations[MultiArchDICTAnnotation], "the status keeps the architectures")
		require.Equal(t, "true", d.Annotations[CDIImmediateBindAnnotation])
	}
}

// mergeCase tweaks a HyperConverged and names the templates expected.
type mergeCase struct {
	name   string
	tweak  func(hc *hcov1beta1.HyperConverged)
	want   []string
	custom map[string]bool // the templates expected with commonTemplate false
}

func mergeCases() []mergeCase {
	myImage := customDICT("my-image-cron", "my-image", "docker://example.org/my:1", nil)
	return []mergeCase{
		{"defaults", func(*hcov1beta1.HyperConverged) {}, []string{centos10, centos9, fedora, testGuest}, nil},
		{"custom added", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{myImage}
		}, []string{centos10, centos9, fedora, "my-image-cron", testGuest}, map[string]bool{"my-image-cron": true}},
		{"common import off keeps custom", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.EnableCommonBootImageImport = boolPtr(false)
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{myImage}
		}, []string{"my-image-cron"}, map[string]bool{"my-image-cron": true}},
		{"common import off and a customised common is still dropped", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.EnableCommonBootImageImport = boolPtr(false)
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{customDICT(fedora, "fedora", "docker://x/f:1", nil)}
		}, nil, nil},
		{"common import explicitly on", func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.EnableCommonBootImageImport = boolPtr(true)
		}, []string{centos10, centos9, fedora, testGuest}, nil},
		{"disabled common and custom", func(hc *hcov1beta1.HyperConverged) {
			off := myImage
			off.Annotations = map[string]string{DataImportCronEnabledAnnotation: "false"}
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{disabled(fedora), disabled(testGuest), off}
		}, []string{centos10, centos9}, nil},
		{"enable annotation true is no opt-out", func(hc *hcov1beta1.HyperConverged) {
			on := myImage
			on.Annotations = map[string]string{DataImportCronEnabledAnnotation: "TRUE"}
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{on}
		}, []string{centos10, centos9, fedora, "my-image-cron", testGuest}, map[string]bool{"my-image-cron": true}},
		{"duplicate names: the first wins", func(hc *hcov1beta1.HyperConverged) {
			second := customDICT("my-image-cron", "other", "docker://example.org/other:1", nil)
			hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{myImage, second}
		}, []string{centos10, centos9, fedora, "my-image-cron", testGuest}, map[string]bool{"my-image-cron": true}},
	}
}

func TestDICTMerge(t *testing.T) {
	for _, c := range mergeCases() {
		t.Run(c.name, func(t *testing.T) {
			hc := newHC()
			c.tweak(hc)
			list := DataImportCronTemplates(hc, metav1.Time{})
			require.Equal(t, c.want, names(list))
			for _, d := range list {
				require.Equal(t, !c.custom[d.Name], d.Status.CommonTemplate, d.Name)
				if d.Name == "my-image-cron" {
					require.Equal(t, "my-image", d.Spec.ManagedDataSource, "the first of two same-named templates")
				}
			}
		})
	}
}

func TestCustomisedCommonDICT(t *testing.T) {
	hc := newHC()
	hc.Spec.CommonBootImageNamespace = strPtr("golden")
	mine := customDICT(fedora, "fedora", "docker://mirror.example.org/fedora:42", map[string]string{"note": "mirror"})
	mine.Namespace = "mirrors"
	mine.Labels = map[string]string{"ignored": "yes"}
	mine.Spec.Schedule = ""
	hc.Status.DataImportSchedule = "17 3/12 * * *"
	list := DataImportCronTemplates(hc, metav1.Time{})

	d := byName(t, list, fedora)
	require.True(t, d.Status.CommonTemplate)
	require.False(t, d.Status.Modified, "not customised yet")
	require.Equal(t, "golden", d.Namespace, "an untouched built-in template goes to commonBootImageNamespace")
	require.Equal(t, "17 3/12 * * *", d.Spec.Schedule, "status.dataImportSchedule replaces the built-in schedule")

	hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{mine}
	list = DataImportCronTemplates(hc, metav1.Time{})
	d = byName(t, list, fedora)
	require.True(t, d.Status.CommonTemplate)
	require.True(t, d.Status.Modified)
	require.Equal(t, "mirrors", d.Namespace, "a customised template goes where it says, not to commonBootImageNamespace")
	require.Equal(t, "docker://mirror.example.org/fedora:42", *d.Spec.Template.Spec.Source.Registry.URL)
	require.Equal(t, "17 3/12 * * *", d.Spec.Schedule, "an empty schedule takes the built-in one")
	require.Nil(t, d.Spec.RetentionPolicy, "the customisation's spec replaces the built-in one whole")
	require.Equal(t, "mirror", d.Annotations["note"], "annotations merge")
	require.Equal(t, "true", d.Annotations[CDIImmediateBindAnnotation], "built-in annotations stay")
	require.Empty(t, d.Labels, "labels are not taken from the customisation")
	require.Empty(t, mine.Spec.Schedule, "the HyperConverged's template is not written to")

	mine.Namespace = ""
	hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{mine, customDICT("mine", "mine", "docker://x/y:1", nil)}
	list = DataImportCronTemplates(hc, metav1.Time{})
	require.Empty(t, byName(t, list, fedora).Namespace, "a customisation without a namespace leaves it to SSP")
	require.Empty(t, byName(t, list, "mine").Namespace, "custom templates never take commonBootImageNamespace")
	require.Equal(t, "golden", byName(t, list, centos9).Namespace)
	require.Equal(t, "5 5 * * *", byName(t, list, "mine").Spec.Schedule, "status.dataImportSchedule is for built-in templates only")
}

func TestCustomisedCommonDICTWithoutSpecKeepsTheBuiltInSpec(t *testing.T) {
	hc := newHC()
	hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{{ObjectMeta: metav1.ObjectMeta{
		Name: testGuest, Annotations: map[string]string{"a": "b"},
	}}}
	d := byName(t, DataImportCronTemplates(hc, metav1.Time{}), testGuest)
	require.Equal(t, TestGuestRegistrySource, *d.Spec.Template.Spec.Source.Registry.URL)
	require.Equal(t, "b", d.Annotations["a"])
	require.True(t, d.Status.Modified)
}
