package virtctl

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestBuildVMIsWhatCreateVMPrints(t *testing.T) {
	args := []string{"--name", "vm1", "--memory", "1Gi", "--volume-pvc", "src:disk,bootorder:1"}
	vm, err := BuildVM(args, "ns")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, createVM(args, "ns", &out))
	want, err := yaml.Marshal(vm)
	require.NoError(t, err)
	assert.Equal(t, string(want), out.String())
	assert.Equal(t, "ns", vm.Namespace)

	vm, err = BuildVM([]string{"--name", "vm1", "-n", "other"}, "ns")
	require.NoError(t, err)
	assert.Equal(t, "other", vm.Namespace)

	_, err = BuildVM([]string{"--memory", "1Gi", "--instancetype", "u1.small"}, "")
	require.EqualError(t, err, "if any flags in the group [memory instancetype] are set none of the others can be")
}
