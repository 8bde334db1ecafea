package tasks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

func ptr(v Value) *Value { return &v }

func TestTaskParamsHaveUpstreamsTypesAndDefaults(t *testing.T) {
	params, err := TaskParams("execute-in-vm")
	require.NoError(t, err)
	assert.Equal(t, []Param{
		{Name: "vmName", Type: ParamTypeString},
		{Name: "vmNamespace", Type: ParamTypeString, Default: ptr(Value{String: ""})},
		{Name: "secretName", Type: ParamTypeString, Default: ptr(Value{String: "__empty__"})},
		{Name: "command", Type: ParamTypeArray, Default: ptr(Value{Array: []string{}})},
		{Name: "args", Type: ParamTypeArray, Default: ptr(Value{Array: []string{}})},
		{Name: "script", Type: ParamTypeString, Default: ptr(Value{String: ""})},
	}, params)
}

func TestTaskParamsInferTheTypeAsTektonDoes(t *testing.T) {
	// wait-for-vmi-status declares its conditions without a type.
	params, err := TaskParams("wait-for-vmi-status")
	require.NoError(t, err)
	assert.Equal(t, Param{Name: "successCondition", Type: ParamTypeString, Default: ptr(Value{String: ""})}, params[2])
}

func TestEveryTaskParamIsReadable(t *testing.T) {
	for _, name := range TaskNames() {
		params, err := TaskParams(name)
		require.NoError(t, err, name)
		for _, p := range params {
			assert.Contains(t, []string{ParamTypeString, ParamTypeArray}, p.Type, "%s.%s", name, p.Name)
		}
	}
}

func TestTaskParamsOfAnUnknownTask(t *testing.T) {
	_, err := TaskParams("no-such-task")
	assert.EqualError(t, err, `no Tekton task "no-such-task"`)
}

func TestWithDefaultsFillsWhatTheRunLeavesOut(t *testing.T) {
	got, err := WithDefaults("cleanup-vm", stepenv.Params{
		Strings: map[string]string{"vmName": "vm1", "delete": "true", "unknown": "dropped"},
		Arrays:  map[string][]string{"command": {"uname", "-a"}},
	})
	require.NoError(t, err)
	assert.Equal(t, stepenv.Params{
		Strings: map[string]string{
			"vmName": "vm1", "vmNamespace": "", "stop": "true", "delete": "true",
			"timeout": "30m", "secretName": "__empty__", "script": "",
		},
		Arrays: map[string][]string{"command": {"uname", "-a"}, "args": {}},
	}, got)
}

func TestWithDefaultsRefusesMissingAndMistypedParams(t *testing.T) {
	_, err := WithDefaults("cleanup-vm", stepenv.Params{})
	assert.EqualError(t, err, "invalid input params for task cleanup-vm: missing values for these params which have no default values: [vmName]")

	_, err = WithDefaults("cleanup-vm", stepenv.Params{
		Strings: map[string]string{"vmName": "vm1", "command": "uname"},
	})
	assert.EqualError(t, err, "invalid input params for task cleanup-vm: param types don't match the user-specified type: [command]")
}
