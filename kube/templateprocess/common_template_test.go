package templateprocess

import (
	"math/rand"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// readCommonTemplate reads the KubeVirt common template of testdata.
func readCommonTemplate(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/fedora_server_small.yaml")
	require.NoError(t, err)
	return string(data)
}

// TestProcessCommonTemplateMatchesGolden processes a KubeVirt common
// template with a fixed seed. The golden file is what oc process --local
// prints for that seed (checked against library-go's processor).
func TestProcessCommonTemplateMatchesGolden(t *testing.T) {
	out, err := Process(parseTemplate(t, readCommonTemplate(t)), Options{Random: rand.NewSource(42)})
	require.NoError(t, err)
	got, err := RenderYAML(out.Objects)
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/fedora_server_small_seed42.golden.yaml")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// TestProcessCommonTemplate checks the fields a VM created from a common
// template depends on, with generated and with user-given values.
func TestProcessCommonTemplate(t *testing.T) {
	tests := []struct {
		name                 string
		values               map[string]string
		vmName, password     string
		sourceName, sourceNS string
		nameRe, passwordRe   string
	}{
		{name: "generated", values: nil, vmName: "fedora-fdgmd0poadbvr15h", password: "yd2e-qouv-cjep",
			sourceName: "fedora", sourceNS: "kubevirt-os-images"},
		{name: "user values", values: map[string]string{"NAME": "my-vm", "DATA_SOURCE_NAME": "fedora-41",
			"DATA_SOURCE_NAMESPACE": "os-images", "CLOUD_USER_PASSWORD": "s3cret"},
			vmName: "my-vm", password: "s3cret", sourceName: "fedora-41", sourceNS: "os-images"},
	}
	for _, tt := range tests {
		out, err := Process(parseTemplate(t, readCommonTemplate(t)), Options{Values: tt.values, Random: rand.NewSource(42)})
		require.NoError(t, err, tt.name)
		require.Len(t, out.Objects, 1, tt.name)
		vm := out.Objects[0].Object.(*unstructured.Unstructured)
		require.Equal(t, "kubevirt.io/v1", vm.GetAPIVersion(), tt.name)
		require.Equal(t, tt.vmName, vm.GetName(), tt.name)
		require.Empty(t, vm.GetNamespace(), tt.name)
		require.Equal(t, tt.vmName, vm.GetLabels()["app"], tt.name)

		dvs, _, _ := unstructured.NestedSlice(vm.Object, "spec", "dataVolumeTemplates")
		require.Len(t, dvs, 1, tt.name)
		dv := dvs[0].(map[string]interface{})
		require.Equal(t, map[string]interface{}{"kind": "DataSource", "name": tt.sourceName, "namespace": tt.sourceNS},
			dv["spec"].(map[string]interface{})["sourceRef"], tt.name)
		dvName, _, _ := unstructured.NestedString(dv, "metadata", "name")
		require.Equal(t, tt.vmName, dvName, tt.name)

		volumes, _, _ := unstructured.NestedSlice(vm.Object, "spec", "template", "spec", "volumes")
		userData, _, _ := unstructured.NestedString(volumes[1].(map[string]interface{}), "cloudInitNoCloud", "userData")
		require.Equal(t, "#cloud-config\nuser: fedora\npassword: "+tt.password+"\nchpasswd: { expire: False }", userData, tt.name)
	}
}

// TestProcessCommonTemplateGeneratesFreshValues checks the generated
// values' shapes over many seeds: the name prefix, the lengths, and the
// characters upstream's ranges allow.
func TestProcessCommonTemplateGeneratesFreshValues(t *testing.T) {
	tpl := parseTemplate(t, readCommonTemplate(t))
	seen := map[string]bool{}
	for seed := int64(0); seed < 50; seed++ {
		out, err := Process(tpl, Options{Random: rand.NewSource(seed)})
		require.NoError(t, err)
		values := map[string]string{}
		for _, p := range out.Parameters {
			values[p.Name] = p.Value
		}
		require.Regexp(t, `^fedora-[a-y0-8]{16}$`, values["NAME"])
		require.Regexp(t, `^[a-y0-8]{4}-[a-y0-8]{4}-[a-y0-8]{4}$`, values["CLOUD_USER_PASSWORD"])
		seen[values["NAME"]] = true
	}
	require.Len(t, seen, 50)
}
