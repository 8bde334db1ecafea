package virtctl

import (
	"bytes"
	"context"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func createdVM(t *testing.T, args ...string) *kubevirtv1.VirtualMachine {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, Main(context.Background(), append([]string{"create", "vm"}, args...), &out))
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, yaml.UnmarshalStrict(out.Bytes(), vm), out.String())
	return vm
}

func TestCreateVMDefaultsAsUpstream(t *testing.T) {
	vm := createdVM(t)
	require.Equal(t, "VirtualMachine", vm.Kind)
	require.Regexp(t, `^vm-[a-z0-9]{5}$`, vm.Name)
	require.Empty(t, vm.Namespace, "no -n, no namespace: kubectl's context decides")
	require.Equal(t, kubevirtv1.RunStrategyAlways, *vm.Spec.RunStrategy)
	require.Equal(t, int64(180), *vm.Spec.Template.Spec.TerminationGracePeriodSeconds)
	require.Equal(t, "512Mi", vm.Spec.Template.Spec.Domain.Memory.Guest.String())
}

func TestCreateVMWithInstancetypeVolumesAndCloudInit(t *testing.T) {
	vm := createdVM(t, "--name", "web", "-n", "apps", "--run-strategy", "Halted",
		"--instancetype", "virtualmachineinstancetype/small", "--preference", "fedora",
		"--volume-containerdisk", "src:test-guest/disk:v1,bootorder:1", "--volume-pvc", "src:data",
		"--user", "cloud-user", "--ssh-key", "ssh-ed25519 AAAA")
	require.Equal(t, "apps", vm.Namespace)
	require.Equal(t, kubevirtv1.RunStrategyHalted, *vm.Spec.RunStrategy)
	require.Equal(t, &kubevirtv1.InstancetypeMatcher{Kind: "virtualmachineinstancetype", Name: "small"}, vm.Spec.Instancetype)
	require.Equal(t, &kubevirtv1.PreferenceMatcher{Name: "fedora"}, vm.Spec.Preference)
	require.Nil(t, vm.Spec.Template.Spec.Domain.Memory, "the instancetype owns memory")
	vols := vm.Spec.Template.Spec.Volumes
	require.Len(t, vols, 3)
	require.Equal(t, "web-containerdisk-0", vols[0].Name)
	require.Equal(t, "test-guest/disk:v1", vols[0].ContainerDisk.Image)
	require.Equal(t, "data", vols[1].PersistentVolumeClaim.ClaimName)
	require.Equal(t, "web-containerdisk-0", vm.Spec.Template.Spec.Domain.Devices.Disks[0].Name)
	require.Equal(t, uint(1), *vm.Spec.Template.Spec.Domain.Devices.Disks[0].BootOrder)
	userData, err := base64.StdEncoding.DecodeString(vols[2].CloudInitNoCloud.UserDataBase64)
	require.NoError(t, err)
	require.Equal(t, "#cloud-config\nuser: cloud-user\nssh_authorized_keys:\n  - ssh-ed25519 AAAA\n", string(userData))
}

func TestCreateVMRejectsBadFlags(t *testing.T) {
	cases := map[string][]string{
		"src must be specified":                     {"--volume-containerdisk", "name:x"},
		"unknown param(s): size:1Gi":                {"--volume-pvc", "src:a,size:1Gi"},
		"there is already a volume with name \"a\"": {"--volume-pvc", "src:a", "--volume-pvc", "src:a"},
		"bootorder 1 was specified multiple times":  {"--volume-pvc", "src:a,bootorder:1", "--volume-pvc", "src:b,bootorder:1"},
		"invalid instancetype kind \"pod\"":         {"--instancetype", "pod/x"},
		"[memory instancetype]":                     {"--memory", "1Gi", "--instancetype", "u1.small"},
		"invalid name \"Big_Disk\"":                 {"--volume-pvc", "src:Big_Disk"},
		"failed to parse \"--memory\" flag":         {"--memory", "lots"},
		"cannot be combined":                        {"--cloud-init-user-data", "eA==", "--user", "me"},
	}
	for want, args := range cases {
		err := Main(context.Background(), append([]string{"create", "vm"}, args...), &bytes.Buffer{})
		require.ErrorContains(t, err, want, "args %v", args)
	}
}
