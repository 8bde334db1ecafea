package modifydataobject

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestParamsFromEnvKeepsOnlyWhatIsSet(t *testing.T) {
	env := map[string]string{
		"DATA_OBJECT_MANIFEST": "m", "DATA_OBJECT_NAMESPACE": "ns", "WAIT_FOR_SUCCESS": "true",
		"ALLOW_REPLACE": "true", "DELETE_OBJECT": "false", "DELETE_OBJECT_KIND": "DataVolume",
		"DELETE_OBJECT_NAME": "x", "SET_OWNER_REFERENCE": "true", "TIMEOUT": "", "POD_NAME": "p",
		"UNRELATED": "u",
	}
	params := paramsFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	assert.Equal(t, map[string]string{
		ParamManifest: "m", ParamNamespace: "ns", ParamWaitForSuccess: "true", ParamAllowReplace: "true",
		ParamDeleteObject: "false", ParamDeleteObjectKind: "DataVolume", ParamDeleteObjectName: "x",
		ParamSetOwnerReference: "true", ParamTimeout: "", ParamPodName: "p",
	}, params.Strings)
}

func TestParseArgs(t *testing.T) {
	for args, want := range map[string]string{"--output=yaml": "yaml", "-o=json": "json", "--debug": ""} {
		got, err := parseArgs([]string{args})
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	got, err := parseArgs([]string{"-o", "json", "--debug"})
	require.NoError(t, err)
	assert.Equal(t, "json", got)

	_, err = parseArgs([]string{"--output"})
	assert.EqualError(t, err, "missing value for --output")
	_, err = parseArgs([]string{"--manifest=x"})
	assert.EqualError(t, err, "unknown argument --manifest=x")
}

func TestPrintObject(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"kind": "DataVolume", "metadata": map[string]any{"name": "disk"}}}
	var out bytes.Buffer
	require.NoError(t, printObject(&out, obj, "yaml"))
	assert.Equal(t, "kind: DataVolume\nmetadata:\n  name: disk\n", out.String())

	out.Reset()
	require.NoError(t, printObject(&out, obj, "json"))
	assert.Equal(t, "{\n    \"kind\": \"DataVolume\",\n    \"metadata\": {\n        \"name\": \"disk\"\n    }\n}\n", out.String())

	out.Reset()
	require.NoError(t, printObject(&out, obj, ""))
	require.NoError(t, printObject(&out, nil, "yaml"))
	assert.Empty(t, out.String())
}

// Bad input fails before the step needs a cluster.
func TestMainReportsBadInputFirst(t *testing.T) {
	t.Setenv("DATA_OBJECT_MANIFEST", "")
	assert.EqualError(t, Main(context.Background(), nil), "data-object-manifest param has to be specified")

	t.Setenv("DATA_OBJECT_MANIFEST", dvManifest)
	assert.EqualError(t, Main(context.Background(), []string{"--output=xml"}), "xml is not a valid output type")
	assert.EqualError(t, Main(context.Background(), []string{"extra"}), "unknown argument extra")
}
