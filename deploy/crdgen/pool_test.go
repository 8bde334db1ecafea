package crdgen

import (
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestPoolServesBothVersionsAndStoresV1beta1 checks the one kind served in
// two versions: exactly one may be stored, and both scale like upstream's.
func TestPoolServesBothVersionsAndStoresV1beta1(t *testing.T) {
	files, err := Generate()
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(files["pool.kubevirt.io_virtualmachinepools.yaml"], crd))
	require.Equal(t, "virtualmachinepools.pool.kubevirt.io", crd.Name)
	require.Equal(t, []string{"vmpool", "vmpools"}, crd.Spec.Names.ShortNames)
	require.Equal(t, []string{"all"}, crd.Spec.Names.Categories)
	require.Len(t, crd.Spec.Versions, 2)
	stored := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		require.True(t, v.Served, v.Name)
		stored[v.Name] = v.Storage
		require.NotNil(t, v.Subresources.Status, v.Name)
		require.NotNil(t, v.Subresources.Scale, v.Name)
		require.Equal(t, ".spec.replicas", v.Subresources.Scale.SpecReplicasPath)
		require.Equal(t, ".status.replicas", v.Subresources.Scale.StatusReplicasPath)
		require.Equal(t, ".status.labelSelector", *v.Subresources.Scale.LabelSelectorPath)
		names := []string{}
		for _, c := range v.AdditionalPrinterColumns {
			names = append(names, c.Name)
		}
		require.Equal(t, []string{"Desired", "Current", "Ready", "Age"}, names)
	}
	require.Equal(t, map[string]bool{"v1alpha1": false, "v1beta1": true}, stored)
}
