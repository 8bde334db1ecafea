package operands

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

func sspDICT(t *testing.T, ssp *sspv1beta3.SSP, name string) sspv1beta3.DataImportCronTemplate {
	t.Helper()
	for _, d := range ssp.Spec.CommonTemplates.DataImportCronTemplates {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("SSP has no template %s", name)
	return sspv1beta3.DataImportCronTemplate{}
}

func TestSSPCarriesTheDICTs(t *testing.T) {
	hc := newHC()
	noBind := customDICT("lazy-cron", "lazy", "docker://example.org/lazy:1",
		map[string]string{CDIImmediateBindAnnotation: "false", MultiArchDICTAnnotation: "amd64"})
	hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{noBind, {ObjectMeta: metav1.ObjectMeta{Name: "bare"}}}
	ssp := desiredSSP(hc)
	var got []string
	for _, d := range ssp.Spec.CommonTemplates.DataImportCronTemplates {
		got = append(got, d.Name)
		_, archs := d.Annotations[MultiArchDICTAnnotation]
		require.False(t, archs, "%s: the architecture list goes to SSP only for multi-arch import", d.Name)
	}
	require.Equal(t, []string{"bare", centos10, centos9, fedora, "lazy-cron", testGuest}, got)
	require.Equal(t, "true", sspDICT(t, ssp, "bare").Annotations[CDIImmediateBindAnnotation], "immediate binding unless said otherwise")
	require.Equal(t, "false", sspDICT(t, ssp, "lazy-cron").Annotations[CDIImmediateBindAnnotation])
	require.Equal(t, cdiv1beta1.DataImportCronSpec{}, sspDICT(t, ssp, "bare").Spec, "a template without spec has an empty one")

	tg := sspDICT(t, ssp, testGuest)
	require.Equal(t, TestGuestDataSource, tg.Spec.ManagedDataSource)
	require.Equal(t, TestGuestRegistrySource, *tg.Spec.Template.Spec.Source.Registry.URL)
	require.Nil(t, tg.Spec.Template.Spec.Source.Registry.CertConfigMap, "the node's registry is plain http")
	require.Equal(t, cdiv1beta1.DataImportCronRetainNone, *tg.Spec.RetentionPolicy)
	require.Equal(t, resource.MustParse("64Mi"), tg.Spec.Template.Spec.Storage.Resources.Requests[corev1.ResourceStorage])
	require.Empty(t, tg.Namespace)
	require.Equal(t, DefaultBootImageNamespace, ssp.Annotations[BootImageNamespaceAnnotation])

	hc.Spec.CommonBootImageNamespace = strPtr("golden")
	require.Equal(t, "golden", sspDICT(t, desiredSSP(hc), testGuest).Namespace)
	require.Equal(t, "golden", desiredSSP(hc).Annotations[BootImageNamespaceAnnotation],
		"the SSP operator finds the boot-image namespace on the SSP")
	hc.Spec.EnableCommonBootImageImport = boolPtr(false)
	hc.Spec.DataImportCronTemplates = nil
	require.Empty(t, desiredSSP(hc).Spec.CommonTemplates.DataImportCronTemplates)
}

func TestMultiArchDICTs(t *testing.T) {
	custom := func(name, archs string) hcov1beta1.DataImportCronTemplate {
		return customDICT(name, name, "docker://example.org/"+name+":1", map[string]string{MultiArchDICTAnnotation: archs})
	}
	cases := []struct {
		name      string
		dicts     []hcov1beta1.DataImportCronTemplate
		dict      string
		wantArchs string // in the status and in SSP
		deployed  bool
	}{
		{"built-in narrowed to the nodes", nil, fedora, "amd64", true},
		{"custom with a node's arch", []hcov1beta1.DataImportCronTemplate{custom("c", "s390x,amd64")}, "c", "amd64", true},
		{"custom with no node's arch", []hcov1beta1.DataImportCronTemplate{custom("c", "arm64")}, "c", "", false},
		{"same registry keeps the built-in list", []hcov1beta1.DataImportCronTemplate{
			customDICT(fedora, "fedora", "docker://quay.io/containerdisks/fedora:latest", map[string]string{MultiArchDICTAnnotation: "arm64"}),
		}, fedora, "amd64", true},
		{"new registry takes the customisation's list", []hcov1beta1.DataImportCronTemplate{
			customDICT(fedora, "fedora", "docker://mirror/fedora:1", map[string]string{MultiArchDICTAnnotation: "arm64"}),
		}, fedora, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := newHC()
			hc.Spec.FeatureGates.EnableMultiArchBootImageImport = boolPtr(true)
			hc.Status.NodeInfo.WorkloadsArchitectures = []string{"amd64"}
			hc.Spec.DataImportCronTemplates = c.dicts
			d := byName(t, DataImportCronTemplates(hc, metav1.Now()), c.dict)
			require.Equal(t, c.wantArchs, d.Annotations[MultiArchDICTAnnotation])
			require.NotEmpty(t, d.Status.OriginalSupportedArchitectures)
			require.Equal(t, !c.deployed, meta.IsStatusConditionFalse(d.Status.Conditions, DICTConditionDeployed))
			found := false
			for _, s := range desiredSSP(hc).Spec.CommonTemplates.DataImportCronTemplates {
				if s.Name == c.dict {
					found = true
					require.Equal(t, c.wantArchs, s.Annotations[MultiArchDICTAnnotation])
				}
			}
			require.Equal(t, c.deployed, found, "a template no node can run is not handed to SSP")
		})
	}
}

func TestMultiArchCustomisationWithoutListDropsItOnANewRegistry(t *testing.T) {
	hc := newHC()
	hc.Spec.FeatureGates.EnableMultiArchBootImageImport = boolPtr(true)
	hc.Status.NodeInfo.WorkloadsArchitectures = []string{"amd64"}
	hc.Spec.DataImportCronTemplates = []hcov1beta1.DataImportCronTemplate{customDICT(fedora, "fedora", "docker://mirror/fedora:1", nil)}
	d := byName(t, DataImportCronTemplates(hc, metav1.Time{}), fedora)
	_, ok := d.Annotations[MultiArchDICTAnnotation]
	require.False(t, ok, "nothing is known about the new image's architectures")
	require.Empty(t, d.Status.Conditions)
}

func TestDeployedConditionKeepsItsTransitionTime(t *testing.T) {
	hc := newHC()
	hc.Spec.FeatureGates.EnableMultiArchBootImageImport = boolPtr(true)
	hc.Status.NodeInfo.WorkloadsArchitectures = []string{"ppc64le"}
	first := metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	hc.Status.DataImportCronTemplates = DataImportCronTemplates(hc, first)
	later := metav1.NewTime(first.Add(time.Hour))
	d := byName(t, DataImportCronTemplates(hc, later), fedora)
	require.Equal(t, first, meta.FindStatusCondition(d.Status.Conditions, DICTConditionDeployed).LastTransitionTime)
}

func TestBootImageNamespace(t *testing.T) {
	hc := newHC()
	require.Equal(t, "virtflow-os-images", BootImageNamespace(hc))
	hc.Spec.CommonBootImageNamespace = strPtr("")
	require.Equal(t, DefaultBootImageNamespace, BootImageNamespace(hc))
	hc.Spec.CommonBootImageNamespace = strPtr("golden")
	require.Equal(t, "golden", BootImageNamespace(hc))
}

// Every field the HyperConverged models reaches CDI's type: a fully set
// spec converted to CDI's type writes the same JSON.
func TestCronSpecConversionLosesNothing(t *testing.T) {
	gc, retain, keep := hcov1beta1.DataImportCronGarbageCollect("Never"), hcov1beta1.DataImportCronRetentionPolicy("All"), int32(4)
	mode, class := corev1.PersistentVolumeBlock, "fast"
	spec := &hcov1beta1.DataImportCronSpec{
		Schedule: "1 2 * * *", GarbageCollect: &gc, ImportsToKeep: &keep, ManagedDataSource: "ds",
		RetentionPolicy: &retain, ServiceAccountName: strPtr("sa"),
		Template: hcov1beta1.DataVolumeTemplate{
			APIVersion: "cdi.kubevirt.io/v1beta1", Kind: "DataVolume",
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"l": "v"}},
			Spec: hcov1beta1.DataVolumeSpec{
				Source: &hcov1beta1.DataVolumeSource{Registry: &hcov1beta1.DataVolumeSourceRegistry{
					URL: strPtr("docker://r/i:1"), PullMethod: strPtr("node"), SecretRef: strPtr("s"),
					CertConfigMap: strPtr("c"), Platform: &hcov1beta1.PlatformOptions{Architecture: "amd64"},
				}},
				Storage: &hcov1beta1.StorageSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class, VolumeMode: &mode,
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
				PriorityClassName: "p", ContentType: "kubevirt", Preallocation: boolPtr(true),
			},
		},
	}
	want, err := json.Marshal(spec)
	require.NoError(t, err)
	raw, err := json.Marshal(cdiCronSpec(spec))
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	tmpl := got["template"].(map[string]any)
	require.Empty(t, tmpl["status"], "a DataVolume's status is all CDI's type adds")
	delete(tmpl, "status")
	raw, err = json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(raw))
}
