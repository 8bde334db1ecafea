package createvm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

func TestStepParamsOfTheManifestTask(t *testing.T) {
	tasktest.UnsetOptionEnv(t, options)
	// What create-vm-from-manifest's step sets.
	for k, v := range map[string]string{
		"VM_MANIFEST": "kind: VirtualMachine", "VM_NAMESPACE": "ns", "VIRTCTL": "", "START_VM": "true",
		"SET_OWNER_REFERENCE": "false", "RUN_STRATEGY": "Halted",
	} {
		t.Setenv(k, v)
	}
	task, params, output, err := stepParams([]string{"--output=yaml"})
	require.NoError(t, err)
	assert.Equal(t, "create-vm-from-manifest", task)
	assert.Equal(t, "yaml", output)
	assert.Equal(t, stepenv.Params{Strings: map[string]string{
		"manifest": "kind: VirtualMachine", "namespace": "ns", "virtctl": "", "startVM": "true",
		"setOwnerReference": "false", "runStrategy": "Halted",
	}}, params)

	// The command line wins over the environment.
	_, params, output, err = stepParams([]string{"-o", "json", "--vm-namespace", "other", "--start-vm=false", "--debug"})
	require.NoError(t, err)
	assert.Equal(t, "json", output)
	assert.Equal(t, "other", params.String(ParamNamespace))
	assert.Equal(t, "false", params.String(ParamStartVM))
}

func TestStepParamsOfTheTemplateTask(t *testing.T) {
	tasktest.UnsetOptionEnv(t, options)
	for k, v := range map[string]string{
		"TEMPLATE_NAME": "tpl", "TEMPLATE_NAMESPACE": "templates", "VM_NAMESPACE": "vms", "START_VM": "", "RUN_STRATEGY": "",
	} {
		t.Setenv(k, v)
	}
	// Tekton expands $(params.templateParams) into one argument per item.
	task, params, _, err := stepParams([]string{"--output=yaml", "--template-params", "NAME:my-vm", "DESC:blue sky"})
	require.NoError(t, err)
	assert.Equal(t, "create-vm-from-template", task)
	assert.Equal(t, stepenv.Params{
		Strings: map[string]string{"templateName": "tpl", "templateNamespace": "templates", "vmNamespace": "vms", "startVM": "", "runStrategy": ""},
		Arrays:  map[string][]string{"templateParams": {"NAME:my-vm", "DESC:blue sky"}},
	}, params)

	_, params, _, err = stepParams([]string{"--template-params", "--output=yaml"})
	require.NoError(t, err, "an empty array leaves the option without values")
	assert.Empty(t, params.Array(ParamTemplateParams))

	t.Setenv("TEMPLATE_NAME", "")
	task, _, _, err = stepParams(nil)
	require.NoError(t, err)
	assert.Equal(t, "create-vm-from-template", task, "the template Task sets TEMPLATE_NAME, even empty")
}

func TestStepParamsErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		args []string
		want string
	}{
		"output":         {nil, []string{"-o", "xml"}, "xml is not a valid output type"},
		"unknown":        {nil, []string{"--nope"}, "unknown argument --nope"},
		"positional":     {nil, []string{"stray"}, "too many positional arguments at 'stray'"},
		"after dashes":   {nil, []string{"--", "stray"}, "too many positional arguments at 'stray'"},
		"missing value":  {nil, []string{"--vm-namespace"}, "missing value for --vm-namespace"},
		"flag as value":  {nil, []string{"--vm-namespace", "--debug"}, "missing value for --vm-namespace"},
		"manifest+ns":    {map[string]string{"VM_MANIFEST": "m", "TEMPLATE_NAMESPACE": "t"}, nil, "template-namespace, template-params options are not applicable for vm-manifest"},
		"manifest+param": {map[string]string{"VM_MANIFEST": "m"}, []string{"--template-params", "A:b"}, "template-namespace, template-params options are not applicable for vm-manifest"},
		"manifest+name":  {map[string]string{"VM_MANIFEST": "m", "TEMPLATE_NAME": "t"}, nil, "only one of vm-manifest, template-name or virtctl should be specified"},
		"virtctl+name":   {map[string]string{"VIRTCTL": "--name x", "TEMPLATE_NAME": "t"}, nil, "only one of vm-manifest, template-name or virtctl should be specified"},
	} {
		t.Run(name, func(t *testing.T) {
			tasktest.UnsetOptionEnv(t, options)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, _, _, err := stepParams(tc.args)
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestTaskNames(t *testing.T) {
	assert.Equal(t, "create-vm-from-manifest", FromManifest.Name)
	assert.Equal(t, "create-vm-from-template", FromTemplate.Name)
}
