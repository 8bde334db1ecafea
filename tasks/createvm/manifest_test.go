package createvm

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

const vmManifest = `apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-fedora
  labels:
    kubevirt.io/vm: vm-fedora
spec:
  running: false
  template:
    metadata:
      labels:
        kubevirt.io/vm: vm-fedora
    spec:
      domain:
        devices: {}
        memory:
          guest: 1Gi
`

func getVM(t *testing.T, env stepenv.Env, namespace, name string) *kubevirtv1.VirtualMachine {
	t.Helper()
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, vm))
	return vm
}

func TestFromManifestCreatesTheVM(t *testing.T) {
	env, log := tasktest.Env(t)
	err := createFromManifest(context.Background(), env, params(map[string]string{
		ParamManifest: vmManifest, ParamNamespace: " target ", ParamRunStrategy: "Halted",
	}), outputformat.YAML)
	require.NoError(t, err)

	vm := getVM(t, env, "target", "vm-fedora")
	assert.Equal(t, map[string]string{"kubevirt.io/vm": "vm-fedora", "vm.kubevirt.io/name": "vm-fedora"}, vm.Spec.Template.ObjectMeta.Labels)
	assert.Equal(t, map[string]string{"kubevirt.io/vm": "vm-fedora"}, vm.Labels)
	assert.Nil(t, vm.Spec.Running, "runStrategy replaces running")
	assert.Equal(t, kubevirtv1.RunStrategyHalted, *vm.Spec.RunStrategy)
	assert.Equal(t, map[string]string{"name": "vm-fedora", "namespace": "target"}, env.Results.Values)
	assert.True(t, strings.HasPrefix(log.String(), "VirtualMachine target/vm-fedora created\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\n"), log.String())
}

func TestFromManifestNamespaceDefaults(t *testing.T) {
	env, _ := tasktest.Env(t)
	inManifest := strings.Replace(vmManifest, "name: vm-fedora\n", "name: vm-fedora\n  namespace: from-manifest\n", 1)
	require.NoError(t, FromManifest.Run(context.Background(), env, params(map[string]string{ParamManifest: inManifest})))
	assert.Equal(t, "from-manifest", env.Results.Values["namespace"])

	require.NoError(t, FromManifest.Run(context.Background(), env, params(map[string]string{ParamManifest: vmManifest})))
	assert.Equal(t, "active", env.Results.Values["namespace"])
	vm := getVM(t, env, "active", "vm-fedora")
	assert.False(t, *vm.Spec.Running, "running is kept without a runStrategy")
}

func TestFromManifestGeneratedName(t *testing.T) {
	env, _ := tasktest.Env(t)
	manifest := strings.Replace(vmManifest, "name: vm-fedora\n", "generateName: vm-fedora-\n", 1)
	require.NoError(t, FromManifest.Run(context.Background(), env, params(map[string]string{ParamManifest: manifest})))
	name := env.Results.Values["name"]
	assert.True(t, strings.HasPrefix(name, "vm-fedora-") && len(name) > len("vm-fedora-"), name)
	vm := getVM(t, env, "active", name)
	_, labelled := vm.Spec.Template.ObjectMeta.Labels[vmNameLabel]
	assert.False(t, labelled, "upstream labels only a VM that has its name")
}

func TestFromManifestErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		params map[string]string
		want   string
	}{
		"neither":  {map[string]string{}, "only one of vm-manifest or virtctl should be specified"},
		"both":     {map[string]string{ParamManifest: vmManifest, ParamVirtctl: "--name x"}, "only one of vm-manifest or virtctl should be specified"},
		"bad yaml": {map[string]string{ParamManifest: "spec: [", ParamNamespace: "ns"}, "could not read VM manifest: "},
		"bad flag": {map[string]string{ParamVirtctl: "--nope x"}, "failed to execute command: flag provided but not defined: -nope"},
		"virtctl namespace": {
			map[string]string{ParamVirtctl: "--name x -n other", ParamNamespace: "ns"},
			"the namespace of the provided object does not match the namespace sent on the request",
		},
	} {
		t.Run(name, func(t *testing.T) {
			env, _ := tasktest.Env(t)
			err := FromManifest.Run(context.Background(), env, params(tc.params))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
			assert.Empty(t, env.Results.Values)
		})
	}
}

func TestFromManifestWithVirtctl(t *testing.T) {
	env, _ := tasktest.Env(t)
	err := FromManifest.Run(context.Background(), env, params(map[string]string{
		ParamVirtctl:   "--name my-vm --memory 1Gi --volume-containerdisk src:quay.io/containerdisks/fedora:latest",
		ParamNamespace: "ns", ParamRunStrategy: "Halted",
	}))
	require.NoError(t, err)
	vm := getVM(t, env, "ns", "my-vm")
	assert.Equal(t, "1Gi", vm.Spec.Template.Spec.Domain.Memory.Guest.String())
	assert.Equal(t, kubevirtv1.RunStrategyAlways, *vm.Spec.RunStrategy, "upstream applies runStrategy to manifests only")
	assert.NotContains(t, vm.Spec.Template.ObjectMeta.Labels, vmNameLabel)
	assert.Equal(t, map[string]string{"name": "my-vm", "namespace": "ns"}, env.Results.Values)
}

func taskRunPod(namespace string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "taskrun-pod", Namespace: namespace, UID: "pod-uid"}}
}

func TestFromManifestSetsThePodAsOwner(t *testing.T) {
	t.Setenv("POD_NAME", "taskrun-pod")
	t.Setenv("POD_NAMESPACE", "ns")
	env, _ := tasktest.Env(t, taskRunPod("ns"))
	for _, p := range []map[string]string{
		{ParamManifest: vmManifest, ParamNamespace: "ns", ParamSetOwnerReference: "true"},
		{ParamVirtctl: "--name from-flags", ParamNamespace: "ns", ParamSetOwnerReference: "true"},
	} {
		require.NoError(t, FromManifest.Run(context.Background(), env, params(p)))
		vm := getVM(t, env, "ns", env.Results.Values["name"])
		assert.Equal(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "taskrun-pod", UID: "pod-uid"}}, vm.OwnerReferences)
	}
	require.NoError(t, FromManifest.Run(context.Background(), env, params(map[string]string{
		ParamVirtctl: "--name not-owned", ParamNamespace: "ns", ParamSetOwnerReference: "yes",
	})))
	assert.Empty(t, getVM(t, env, "ns", "not-owned").OwnerReferences, "only \"true\" sets the owner")
}

func TestFromManifestOwnerErrors(t *testing.T) {
	owned := map[string]string{ParamManifest: vmManifest, ParamNamespace: "ns", ParamSetOwnerReference: "true"}
	for name, tc := range map[string]struct {
		env  map[string]string
		pod  *corev1.Pod
		want string
	}{
		"no pod name":      {map[string]string{"POD_NAMESPACE": "ns"}, taskRunPod("ns"), "pod name env variable is not set"},
		"no pod namespace": {map[string]string{"POD_NAME": "taskrun-pod"}, taskRunPod("ns"), "pod namespace env variable is not set"},
		"no pod":           {map[string]string{"POD_NAME": "gone", "POD_NAMESPACE": "ns"}, taskRunPod("ns"), `pods "gone" not found`},
		"other namespace": {
			map[string]string{"POD_NAME": "taskrun-pod", "POD_NAMESPACE": "pods"}, taskRunPod("pods"),
			"can't create owner reference for objects in different namespaces",
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"POD_NAME", "POD_NAMESPACE"} {
				t.Setenv(k, "")
				if v, ok := tc.env[k]; ok {
					t.Setenv(k, v)
				} else {
					tasktest.Unsetenv(t, k)
				}
			}
			env, _ := tasktest.Env(t, tc.pod)
			err := FromManifest.Run(context.Background(), env, params(owned))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
