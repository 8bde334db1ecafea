package createvm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestPrintVM(t *testing.T) {
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Name: "vm", Namespace: "ns"}}
	env, log := testEnv(t)
	require.NoError(t, printVM(env, vm, outputJSON))
	assert.True(t, strings.HasPrefix(log.String(), "{\n    \"kind\": \"VirtualMachine\",\n    \"apiVersion\": \"kubevirt.io/v1\",\n"), log.String())
	assert.True(t, strings.HasSuffix(log.String(), "}\n"))

	log.Reset()
	require.NoError(t, printVM(env, vm, ""))
	assert.Empty(t, log.String(), "no --output prints nothing")
	assert.Empty(t, vm.Kind, "the VM itself is left alone")
}

func TestTaskNames(t *testing.T) {
	assert.Equal(t, "create-vm-from-manifest", FromManifest.Name)
	assert.Equal(t, "create-vm-from-template", FromTemplate.Name)
}
