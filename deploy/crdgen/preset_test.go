package crdgen

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func TestPresetCRDIsDeprecatedInEveryVersionAsUpstream(t *testing.T) {
	files, err := Generate()
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(files["kubevirt.io_virtualmachineinstancepresets.yaml"], crd))
	require.Len(t, crd.Spec.Versions, 2)
	v1, alpha := crd.Spec.Versions[0], crd.Spec.Versions[1]
	assert.Equal(t, "v1", v1.Name)
	assert.True(t, v1.Served && v1.Storage && v1.Deprecated)
	assert.Equal(t, "kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2.", *v1.DeprecationWarning)
	assert.Equal(t, "v1alpha3", alpha.Name)
	assert.True(t, alpha.Served && !alpha.Storage && alpha.Deprecated)
	assert.Equal(t, "kubevirt.io/v1alpha3 VirtualMachineInstancePresets is now deprecated and will be removed in v2.", *alpha.DeprecationWarning)
	assert.Equal(t, v1.Schema, alpha.Schema, "no conversion: both versions share the schema")
}
