package createvm

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/tasktest"
)

const startPath = "PUT /apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm-fedora/start"

func TestStartVM(t *testing.T) {
	for name, tc := range map[string]struct {
		params map[string]string
		starts bool
	}{
		"running false":  {map[string]string{ParamStartVM: "true"}, true},
		"halted":         {map[string]string{ParamStartVM: "true", ParamRunStrategy: "Halted"}, true},
		"manual":         {map[string]string{ParamStartVM: "true", ParamRunStrategy: "Manual"}, true},
		"always":         {map[string]string{ParamStartVM: "true", ParamRunStrategy: "Always"}, false},
		"not asked":      {map[string]string{ParamStartVM: "false"}, false},
		"not true":       {map[string]string{ParamStartVM: "invalid_value"}, false},
		"running true":   {map[string]string{ParamStartVM: "true", ParamManifest: strings.Replace(vmManifest, "running: false", "running: true", 1)}, false},
		"virtctl always": {map[string]string{ParamStartVM: "true", ParamVirtctl: "--name vm-fedora"}, false},
		"virtctl halted": {map[string]string{ParamStartVM: "true", ParamVirtctl: "--name vm-fedora --run-strategy Halted"}, true},
	} {
		t.Run(name, func(t *testing.T) {
			env, _ := tasktest.Env(t)
			api := withVirtAPI(t, &env, http.StatusAccepted)
			p := map[string]string{ParamManifest: vmManifest, ParamNamespace: "ns"}
			for k, v := range tc.params {
				p[k] = v
			}
			if p[ParamVirtctl] != "" {
				delete(p, ParamManifest)
			}
			require.NoError(t, FromManifest.Run(context.Background(), env, params(p)))
			if tc.starts {
				assert.Equal(t, []string{startPath}, api.requests())
			} else {
				assert.Empty(t, api.requests())
			}
			assert.Equal(t, "vm-fedora", env.Results.Values["name"])
		})
	}
}

func TestStartVMFailure(t *testing.T) {
	env, _ := tasktest.Env(t)
	withVirtAPI(t, &env, http.StatusInternalServerError)
	err := FromManifest.Run(context.Background(), env, params(map[string]string{ParamManifest: vmManifest, ParamNamespace: "ns", ParamStartVM: "true"}))
	require.EqualError(t, err, "virt-api says no")
	assert.Empty(t, env.Results.Values, "no results when the start fails")

	env, _ = tasktest.Env(t)
	err = FromManifest.Run(context.Background(), env, params(map[string]string{ParamManifest: vmManifest, ParamNamespace: "ns", ParamStartVM: "true"}))
	require.EqualError(t, err, "starting VM: no client configuration to reach virt-api")
}

func TestCreateTwiceAdoptsTheFirstVM(t *testing.T) {
	env, _ := tasktest.Env(t)
	api := withVirtAPI(t, &env, http.StatusAccepted)
	p := params(map[string]string{ParamManifest: vmManifest, ParamNamespace: "ns", ParamStartVM: "true", ParamRunStrategy: "Manual"})
	require.NoError(t, FromManifest.Run(context.Background(), env, p))

	// The server defaults fields and starting changes the run strategy.
	vm := getVM(t, env, "ns", "vm-fedora")
	always := kubevirtv1.RunStrategyAlways
	vm.Spec.RunStrategy = &always
	vm.Spec.Template.Spec.Domain.Machine = &kubevirtv1.Machine{Type: "q35"}
	vm.Labels["added-by-server"] = "yes"
	require.NoError(t, env.Client.Update(context.Background(), vm))

	env.Results.Values = map[string]string{}
	require.NoError(t, FromManifest.Run(context.Background(), env, p))
	assert.Equal(t, map[string]string{"name": "vm-fedora", "namespace": "ns"}, env.Results.Values)
	assert.Equal(t, []string{startPath}, api.requests(), "an adopted VM that runs is not started again")

	list := &kubevirtv1.VirtualMachineList{}
	require.NoError(t, env.Client.List(context.Background(), list, client.InNamespace("ns")))
	assert.Len(t, list.Items, 1)
}

func TestCreateTwiceIgnoresAConflictingStartOfTheAdoptedVM(t *testing.T) {
	env, _ := tasktest.Env(t)
	withVirtAPI(t, &env, http.StatusAccepted)
	p := params(map[string]string{ParamManifest: vmManifest, ParamNamespace: "ns", ParamStartVM: "true", ParamRunStrategy: "Manual"})
	require.NoError(t, FromManifest.Run(context.Background(), env, p))
	api := withVirtAPI(t, &env, http.StatusConflict)
	require.NoError(t, FromManifest.Run(context.Background(), env, p), "a Manual VM already started")
	assert.Equal(t, []string{startPath}, api.requests())
}

func TestCreateRefusesAnotherVMOfTheSameName(t *testing.T) {
	t.Setenv("POD_NAME", "taskrun-pod")
	t.Setenv("POD_NAMESPACE", "ns")
	for name, change := range map[string]func(*kubevirtv1.VirtualMachine){
		"other spec":   func(vm *kubevirtv1.VirtualMachine) { vm.Spec.Template.Spec.Domain.Memory = nil },
		"other labels": func(vm *kubevirtv1.VirtualMachine) { delete(vm.Labels, "kubevirt.io/vm") },
		"other owner": func(vm *kubevirtv1.VirtualMachine) {
			vm.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "earlier-run", UID: "other-uid"}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			env, _ := tasktest.Env(t, taskRunPod("ns"))
			p := params(map[string]string{ParamManifest: vmManifest, ParamNamespace: "ns", ParamSetOwnerReference: "true"})
			require.NoError(t, FromManifest.Run(context.Background(), env, p))
			vm := getVM(t, env, "ns", "vm-fedora")
			change(vm)
			require.NoError(t, env.Client.Update(context.Background(), vm))

			env.Results.Values = map[string]string{}
			err := FromManifest.Run(context.Background(), env, p)
			require.EqualError(t, err, `virtualmachines.kubevirt.io "vm-fedora" already exists`)
			assert.Empty(t, env.Results.Values)
		})
	}
}
