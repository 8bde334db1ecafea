package outputformat

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{"", YAML, JSON} {
		assert.NoError(t, Check(ok))
	}
	assert.EqualError(t, Check("xml"), "xml is not a valid output type")
}

func TestPrint(t *testing.T) {
	obj := map[string]any{"kind": "DataVolume", "metadata": map[string]any{"name": "disk"}}
	var out bytes.Buffer
	require.NoError(t, Print(&out, "the data object", obj, YAML))
	assert.Equal(t, "kind: DataVolume\nmetadata:\n  name: disk\n", out.String())

	out.Reset()
	require.NoError(t, Print(&out, "the data object", obj, JSON))
	assert.Equal(t, "{\n    \"kind\": \"DataVolume\",\n    \"metadata\": {\n        \"name\": \"disk\"\n    }\n}\n", out.String())

	out.Reset()
	require.NoError(t, Print(&out, "the data object", obj, ""))
	require.NoError(t, Print(nil, "the data object", obj, YAML))
	assert.Empty(t, out.String())

	require.EqualError(t, Print(&out, "the data object", map[string]any{"f": func() {}}, JSON),
		"printing the data object: json: unsupported type: func()")
}

func TestPrintObject(t *testing.T) {
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: "vm", Namespace: "ns"}}
	gvk := kubevirtv1.GroupVersion.WithKind("VirtualMachine")
	var log bytes.Buffer
	require.NoError(t, PrintObject(&log, vm, gvk, JSON))
	assert.True(t, strings.HasPrefix(log.String(), "{\n    \"kind\": \"VirtualMachine\",\n    \"apiVersion\": \"kubevirt.io/v1\",\n"), log.String())
	assert.True(t, strings.HasSuffix(log.String(), "}\n"))

	log.Reset()
	require.NoError(t, PrintObject(&log, vm, gvk, YAML))
	assert.True(t, strings.HasPrefix(log.String(), "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\n"), log.String())

	log.Reset()
	require.NoError(t, PrintObject(&log, vm, gvk, ""))
	assert.Empty(t, log.String(), "no --output prints nothing")
	assert.Empty(t, vm.Kind, "the VM itself is left alone")
}
