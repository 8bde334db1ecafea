package modifyvmtemplate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModifyErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		strings map[string]string
		arrays  map[string][]string
		want    string
	}{
		"no name":      {map[string]string{ParamTemplateName: " "}, nil, "template-name param has to be specified"},
		"not found":    {map[string]string{ParamTemplateName: "other"}, nil, `templates.template.openshift.io "other" not found`},
		"bad flag":     {map[string]string{ParamDeleteDisks: "maybe"}, nil, `error processing environment variable DELETE_DISKS: strconv.ParseBool: parsing "maybe": invalid syntax`},
		"empty flag":   {map[string]string{ParamDeleteTemplate: ""}, nil, `error processing environment variable DELETE_TEMPLATE: strconv.ParseBool: parsing "": invalid syntax`},
		"flags first":  {map[string]string{ParamTemplateName: "", ParamDeleteVolumes: "x"}, nil, `error processing environment variable DELETE_VOLUMES: strconv.ParseBool: parsing "x": invalid syntax`},
		"memory":       {map[string]string{ParamMemory: "lots"}, nil, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
		"cores":        {map[string]string{ParamCPUCores: "wrong cpu cores"}, nil, `strconv.ParseUint: parsing "wrong cpu cores": invalid syntax`},
		"sockets":      {map[string]string{ParamCPUSockets: "wrong cpu sockets"}, nil, `strconv.ParseUint: parsing "wrong cpu sockets": invalid syntax`},
		"threads":      {map[string]string{ParamCPUThreads: "-1"}, nil, `strconv.ParseUint: parsing "-1": invalid syntax`},
		"too many":     {map[string]string{ParamCPUThreads: "4294967296"}, nil, `strconv.ParseUint: parsing "4294967296": value out of range`},
		"disk":         {nil, map[string][]string{ParamDisks: {"wrong"}}, "invalid character 'w' looking for beginning of value"},
		"volume":       {nil, map[string][]string{ParamVolumes: {"wrong"}}, "invalid character 'w' looking for beginning of value"},
		"dv template":  {nil, map[string][]string{ParamDatavolumeTemplates: {`{"metadata": []}`}}, "json: cannot unmarshal array into Go struct field DataVolumeTemplateSpec.metadata of type v1.ObjectMeta"},
		"parameter":    {nil, map[string][]string{ParamTemplateParameters: {`{"name": 1}`}}, "json: cannot unmarshal number into Go struct field Parameter.name of type string"},
		"two disks":    {nil, map[string][]string{ParamDisks: {"wrong", "{"}}, "unexpected end of JSON input\nunexpected end of JSON input"},
		"tpl labels":   {nil, map[string][]string{ParamTemplateLabels: {"label"}}, `no key found before "label"; pair should be in "KEY:VAL" format`},
		"tpl annots":   {nil, map[string][]string{ParamTemplateAnnotations: {"annotation"}}, `no key found before "annotation"; pair should be in "KEY:VAL" format`},
		"vm labels":    {nil, map[string][]string{ParamVMLabels: {":x"}}, `no key found before ":x"; pair should be in "KEY:VAL" format`},
		"vm annots":    {nil, map[string][]string{ParamVMAnnotations: {"a"}}, `no key found before "a"; pair should be in "KEY:VAL" format`},
		"labels stop":  {map[string]string{ParamMemory: "x"}, map[string][]string{ParamTemplateLabels: {"l"}, ParamVMLabels: {"v"}}, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n" + `no key found before "l"; pair should be in "KEY:VAL" format`},
		"all together": {map[string]string{ParamCPUCores: "a", ParamCPUThreads: "b"}, map[string][]string{ParamVMLabels: {"v"}}, "strconv.ParseUint: parsing \"a\": invalid syntax\nstrconv.ParseUint: parsing \"b\": invalid syntax\nno key found before \"v\"; pair should be in \"KEY:VAL\" format"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.strings == nil {
				tc.strings = map[string]string{}
			}
			env, _ := testEnv(t)
			err := Task.Run(context.Background(), env, taskParams(tc.strings, tc.arrays))
			require.EqualError(t, err, tc.want)
			assert.Empty(t, env.Results.Values)
		})
	}
}

func TestCPUCountReadsDecimals(t *testing.T) {
	errs := &multiError{}
	assert.Equal(t, uint32(10), cpuCount("010", "x", errs))
	assert.Equal(t, uint32(0), cpuCount("0x10", "x", errs), "valid in any base, but upstream keeps only decimals")
	assert.Nil(t, errs.orNil())
}

func TestReadOptionsDefaultsTheNamespace(t *testing.T) {
	o, err := readOptions(taskParams(map[string]string{}, nil), "active")
	require.NoError(t, err)
	assert.Equal(t, "active", o.namespace)
	o, err = readOptions(taskParams(map[string]string{ParamTemplateNamespace: " ns "}, nil), "active")
	require.NoError(t, err)
	assert.Equal(t, "ns", o.namespace)
	assert.False(t, o.deleteDisks || o.deleteTemplate, "absent flags are false")
}
