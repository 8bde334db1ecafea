package modifyvmtemplate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepargs"
	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

func TestStepParamsOfTheTask(t *testing.T) {
	tasktest.UnsetOptionEnv(t, cliOptions)
	// What modify-vm-template's step sets.
	env := map[string]string{
		"TEMPLATE_NAME": "tpl", "TEMPLATE_NAMESPACE": "", "CPU_SOCKETS": "0", "CPU_CORES": "2", "CPU_THREADS": "0",
		"MEMORY": "", "DELETE_DATAVOLUME_TEMPLATE": "false", "DELETE_DISKS": "true", "DELETE_VOLUMES": "false",
		"DELETE_TEMPLATE_PARAMETERS": "false", "DELETE_TEMPLATE": "false",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	// Tekton expands each array parameter into its items; empty ones vanish.
	args := []string{
		"--output=yaml", "--template-labels", "a:b", "c:d", "--template-annotations", "--vm-labels", "--vm-annotations",
		"note:two words", "--disks", `{"name": "test", "cdrom": {"bus": "sata"}}`, "--volumes", "--datavolumeTemplates",
		"--templateParameters", `{"name": "NAME"}`,
	}
	params, output, err := stepargs.TaskParams(cliOptions, args)
	require.NoError(t, err)
	assert.Equal(t, "yaml", output)
	assert.Equal(t, stepenv.Params{
		Strings: map[string]string{
			"templateName": "tpl", "templateNamespace": "", "cpuSockets": "0", "cpuCores": "2", "cpuThreads": "0",
			"memory": "", "deleteDatavolumeTemplate": "false", "deleteDisks": "true", "deleteVolumes": "false",
			"deleteTemplateParameters": "false", "deleteTemplate": "false",
		},
		Arrays: map[string][]string{
			"templateLabels": {"a:b", "c:d"}, "templateAnnotations": nil, "vmLabels": nil,
			"vmAnnotations": {"note:two words"}, "disks": {`{"name": "test", "cdrom": {"bus": "sata"}}`},
			"volumes": nil, "datavolumeTemplates": nil, "templateParameters": {`{"name": "NAME"}`},
		},
	}, params)
}

func TestStepParamsFromTheCommandLine(t *testing.T) {
	tasktest.UnsetOptionEnv(t, cliOptions)
	t.Setenv("DELETE_TEMPLATE", "false")
	params, output, err := stepargs.TaskParams(cliOptions, []string{"--template-name", "tpl", "--delete-template", "--delete-disks=false", "-o", "json", "--debug"})
	require.NoError(t, err)
	assert.Equal(t, "json", output)
	assert.Equal(t, map[string]string{"templateName": "tpl", "deleteTemplate": "true", "deleteDisks": "false"}, params.Strings)
}

func TestStepParamsErrors(t *testing.T) {
	tasktest.UnsetOptionEnv(t, cliOptions)
	for want, args := range map[string][]string{
		"yml is not a valid output type":       {"--output=yml"},
		"unknown argument --cpu":               {"--cpu", "2"},
		"too many positional arguments at 'x'": {"--delete-disks", "x"},
		"missing value for --memory":           {"--memory"},
	} {
		_, _, err := stepargs.TaskParams(cliOptions, args)
		require.EqualError(t, err, want)
	}
}
