package crdgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

const committed = "../crds"

// TestCommittedCRDsAreCurrent fails when a Go API type changed and
// `make generate` was not run.
func TestCommittedCRDsAreCurrent(t *testing.T) {
	files, err := Generate()
	require.NoError(t, err)
	onDisk, err := filepath.Glob(filepath.Join(committed, "*.yaml"))
	require.NoError(t, err)
	require.Len(t, onDisk, len(files), "deploy/crds has a different set of files than the generator produces; run make generate")
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(committed, name))
		require.NoError(t, err, "missing %s; run make generate", name)
		require.Equal(t, string(want), string(got), "%s is stale; run make generate", name)
	}
}

func TestUpstreamKindsKeepUpstreamNamesAndScope(t *testing.T) {
	files, err := Generate()
	require.NoError(t, err)
	cases := []struct {
		file, kind string
		scope      apiextensionsv1.ResourceScope
		short      string
		status     bool
	}{
		{"kubevirt.io_virtualmachines.yaml", "VirtualMachine", apiextensionsv1.NamespaceScoped, "vm", true},
		{"kubevirt.io_virtualmachineinstances.yaml", "VirtualMachineInstance", apiextensionsv1.NamespaceScoped, "vmi", true},
		{"instancetype.kubevirt.io_virtualmachineclusterinstancetypes.yaml", "VirtualMachineClusterInstancetype", apiextensionsv1.ClusterScoped, "vmcf", false},
		{"cdi.kubevirt.io_datavolumes.yaml", "DataVolume", apiextensionsv1.NamespaceScoped, "dv", true},
		{"hco.kubevirt.io_hyperconvergeds.yaml", "HyperConverged", apiextensionsv1.NamespaceScoped, "hco", true},
		{"networkaddonsoperator.network.kubevirt.io_networkaddonsconfigs.yaml", "NetworkAddonsConfig", apiextensionsv1.ClusterScoped, "", true},
	}
	for _, c := range cases {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, yaml.Unmarshal(files[c.file], crd), c.file)
		require.Equal(t, c.kind, crd.Spec.Names.Kind)
		require.Equal(t, c.scope, crd.Spec.Scope, c.kind)
		if c.short != "" {
			require.Contains(t, crd.Spec.Names.ShortNames, c.short, c.kind)
		}
		v := crd.Spec.Versions[0]
		require.Equal(t, c.status, v.Subresources != nil && v.Subresources.Status != nil, "%s status subresource", c.kind)
		require.NotNil(t, v.Schema.OpenAPIV3Schema.Properties["spec"], "%s has a structural spec schema", c.kind)
	}
}

// TestCommittedDeepCopyIsCurrent fails when an own API type changed and
// `make generate` was not run, or a generated file was edited by hand.
func TestCommittedDeepCopyIsCurrent(t *testing.T) {
	files, err := DeepCopy()
	require.NoError(t, err)
	require.Len(t, files, len(OwnAPIPackages))
	for path, want := range files {
		require.Equal(t, DeepCopyFile, filepath.Base(path))
		got, err := os.ReadFile(path)
		require.NoError(t, err, "missing %s; run make generate", path)
		require.Equal(t, string(want), string(got), "%s is stale; run make generate", path)
	}
}
