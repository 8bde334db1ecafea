package crdgen

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func TestReplicaSetCRDServesUpstreamsVersionsWithScale(t *testing.T) {
	files, err := Generate()
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(files["kubevirt.io_virtualmachineinstancereplicasets.yaml"], crd))
	assert.Equal(t, []string{"vmirs", "vmirss"}, crd.Spec.Names.ShortNames)
	require.Len(t, crd.Spec.Versions, 2)
	v1, alpha := crd.Spec.Versions[0], crd.Spec.Versions[1]
	assert.Equal(t, "v1", v1.Name)
	assert.True(t, v1.Served && v1.Storage && !v1.Deprecated)
	assert.Equal(t, "v1alpha3", alpha.Name)
	assert.True(t, alpha.Served && !alpha.Storage && alpha.Deprecated)
	assert.Equal(t, "kubevirt.io/v1alpha3 is now deprecated and will be removed in a future release.", *alpha.DeprecationWarning)
	assert.Equal(t, v1.Schema, alpha.Schema, "no conversion: both versions share the schema")
	for _, v := range crd.Spec.Versions {
		require.NotNil(t, v.Subresources.Status, v.Name)
		scale := v.Subresources.Scale
		require.NotNil(t, scale, v.Name)
		assert.Equal(t, ".spec.replicas", scale.SpecReplicasPath)
		assert.Equal(t, ".status.replicas", scale.StatusReplicasPath)
		assert.Equal(t, ".status.labelSelector", *scale.LabelSelectorPath)
		var names []string
		for _, c := range v.AdditionalPrinterColumns {
			names = append(names, c.Name)
		}
		assert.Equal(t, []string{"Desired", "Current", "Ready", "Age"}, names)
		assert.Equal(t, "Number of managed and not final or deleted VirtualMachineInstances", v.AdditionalPrinterColumns[1].Description)
	}
}
