package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/virtflow/virtflow/operands/commontemplates"
)

// testGuestTemplateFile writes the test guest's server-small template as
// SSP installs it.
func testGuestTemplateFile(t *testing.T) string {
	t.Helper()
	for _, tpl := range commontemplates.Templates(commontemplates.Options{}) {
		if tpl.Name == "virtflow-test-guest-server-small" {
			tpl.APIVersion, tpl.Kind = "template.openshift.io/v1", "Template"
			data, err := yaml.Marshal(tpl)
			require.NoError(t, err)
			file := filepath.Join(t.TempDir(), "t.yaml")
			require.NoError(t, os.WriteFile(file, data, 0o600))
			return file
		}
	}
	t.Fatal("no test guest template")
	return ""
}

func TestTemplateProcessPrintsAListForKubectl(t *testing.T) {
	file := testGuestTemplateFile(t)
	var out bytes.Buffer
	require.NoError(t, Main(context.Background(), []string{"template", "process", "-f", file, "-p", "NAME=web1", "DATA_SOURCE_NAME=mine"}, &out))
	var list struct {
		Kind  string `json:"kind"`
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				DataVolumeTemplates []struct {
					Spec struct {
						SourceRef struct{ Name, Namespace string } `json:"sourceRef"`
					} `json:"spec"`
				} `json:"dataVolumeTemplates"`
			} `json:"spec"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &list), out.String())
	require.Equal(t, "List", list.Kind)
	require.Len(t, list.Items, 1)
	vm := list.Items[0]
	require.Equal(t, "VirtualMachine", vm.Kind)
	require.Equal(t, "web1", vm.Metadata.Name)
	require.Equal(t, "virtflow-test-guest-server-small", vm.Metadata.Labels["vm.kubevirt.io/template"])
	require.Equal(t, "openshift", vm.Metadata.Labels["vm.kubevirt.io/template.namespace"], "labelled as the console labels it")
	require.Equal(t, "mine", vm.Spec.DataVolumeTemplates[0].Spec.SourceRef.Name)
	require.Equal(t, commontemplates.DefaultDataSourceNamespace, vm.Spec.DataVolumeTemplates[0].Spec.SourceRef.Namespace)
}

func TestTemplateProcessRefusesWhatOcRefuses(t *testing.T) {
	file := testGuestTemplateFile(t)
	err := Main(context.Background(), []string{"template", "process", "-f", file, "-p", "COLOR=blue"}, &bytes.Buffer{})
	require.EqualError(t, err, "unknown parameter name \"COLOR\"\n")
	err = Main(context.Background(), []string{"template", "process", "-f", file, "-p", "NAME"}, &bytes.Buffer{})
	require.ErrorContains(t, err, `invalid parameter assignment in "NAME"`)
	err = Main(context.Background(), []string{"template", "process"}, &bytes.Buffer{})
	require.ErrorContains(t, err, "a template name or -f FILE is required")
}
