package copytemplate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepargs"
	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

func TestStepParams(t *testing.T) {
	tasktest.UnsetOptionEnv(t, options)
	// What copy-template's step sets.
	for k, v := range map[string]string{
		"SOURCE_TEMPLATE_NAME": "src", "SOURCE_TEMPLATE_NAMESPACE": "", "TARGET_TEMPLATE_NAME": "dst",
		"TARGET_TEMPLATE_NAMESPACE": "ns", "ALLOW_REPLACE": "false",
	} {
		t.Setenv(k, v)
	}
	params, output, err := stepargs.TaskParams(options, []string{"--output=yaml"})
	require.NoError(t, err)
	assert.Equal(t, "yaml", output)
	assert.Equal(t, stepenv.Params{Strings: map[string]string{
		"sourceTemplateName": "src", "sourceTemplateNamespace": "", "targetTemplateName": "dst",
		"targetTemplateNamespace": "ns", "allowReplace": "false",
	}}, params)

	params, output, err = stepargs.TaskParams(options, []string{"-o", "json", "--allow-replace", "true", "--target-template-name=other", "--debug", "--"})
	require.NoError(t, err)
	assert.Equal(t, "json", output)
	assert.Equal(t, "true", params.String(ParamAllowReplace))
	assert.Equal(t, "other", params.String(ParamTargetTemplateName))
}

func TestStepParamsErrors(t *testing.T) {
	tasktest.UnsetOptionEnv(t, options)
	for want, args := range map[string][]string{
		"xml is not a valid output type":           {"-o", "xml"},
		"unknown argument --nope":                  {"--nope"},
		"unknown argument --=x":                    {"--=x"},
		"too many positional arguments at 'x'":     {"x"},
		"too many positional arguments at 'y'":     {"--", "y"},
		"missing value for --source-template-name": {"--source-template-name"},
		"missing value for -o":                     {"-o", "--debug"},
	} {
		_, _, err := stepargs.TaskParams(options, args)
		require.EqualError(t, err, want)
	}
}
