package templatevalidation

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseEmptyAnnotationHoldsNoRules(t *testing.T) {
	rules, err := Parse("")
	require.NoError(t, err)
	require.Empty(t, rules)
}

func TestParseReadsEveryField(t *testing.T) {
	rules := mustParse(t, `[{
		"name": "r", "rule": "integer", "message": "m",
		"path": "jsonpath::$.spec.domain.cpu.cores",
		"valid": "jsonpath::.spec.domain.cpu",
		"justWarning": true,
		"min": 1.6, "max": "jsonpath::.spec.domain.cpu.sockets",
		"minLength": 2, "maxLength": 3,
		"values": ["virtio", "jsonpath::.spec.domain.machine.type"],
		"regex": "^v",
		"unknownKey": "ignored"
	}]`)
	require.Len(t, rules, 1)
	r := rules[0]
	require.Equal(t, IntegerRule, r.Type)
	require.Equal(t, "r", r.Name)
	require.Equal(t, "m", r.Message)
	require.Equal(t, ".spec.domain.cpu.cores", r.Path.Expr(), "the $ root is dropped")
	require.Equal(t, ".spec.domain.cpu", r.Valid.Expr())
	require.True(t, r.JustWarning)
	require.Equal(t, IntOrPath{Int: 2}, *r.Min, "numbers are rounded")
	require.False(t, r.Max.IsInt())
	require.Equal(t, ".spec.domain.cpu.sockets", r.Max.Path.Expr())
	require.Equal(t, int64(2), r.MinLength.Int)
	require.Equal(t, int64(3), r.MaxLength.Int)
	require.Equal(t, "virtio", r.Values[0].Str)
	require.Equal(t, ".spec.domain.machine.type", r.Values[1].Path.Expr())
	require.Equal(t, "^v", r.Regex)
}

func TestParseLeavesOmittedOptionalFieldsUnset(t *testing.T) {
	rules := mustParse(t, `[{"name": "r", "rule": "enum", "message": "m",
		"path": "jsonpath::.spec.domain.machine.type", "min": null}]`)
	r := rules[0]
	require.Nil(t, r.Valid)
	require.Nil(t, r.Min)
	require.Nil(t, r.Max)
	require.False(t, r.JustWarning)
	require.Empty(t, r.Values)
}

func TestParseKeepsMalformedRulesForEvaluate(t *testing.T) {
	// Unknown types and missing messages are reported per rule when the VM
	// is evaluated, not as a broken annotation.
	rules := mustParse(t, `[{"name": "a", "rule": "value-set", "path": "jsonpath::.spec.x"}, {"name": "a"}]`)
	require.Len(t, rules, 2)
	require.Equal(t, RuleType("value-set"), rules[0].Type)
	require.False(t, rules[1].Path.IsSet())
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, json, upstreamText string
	}{
		{"truncated", `[{"name": "a"`, "unexpected end of JSON input"},
		{"blank", ` `, "unexpected end of JSON input"},
		{"object instead of array", `{"name": "a"}`,
			"json: cannot unmarshal object into Go value of type []templatevalidation.Rule"},
		{"path without prefix", `[{"path": ".spec.domain.cpu.cores"}]`, "invalid JSONPath"},
		{"path with $ but no prefix", `[{"path": "$.spec.domain.cpu.cores"}]`, "invalid JSONPath"},
		{"malformed jsonpath", `[{"path": "jsonpath::.spec.domain.devices.disks[*"}]`,
			"unterminated array"},
		{"valid without prefix", `[{"valid": "spec.domain.cpu"}]`, "invalid JSONPath"},
		{"path not a string", `[{"path": 3}]`,
			"json: cannot unmarshal number into Go struct field Rule.path of type string"},
		{"quantity as min", `[{"min": "1Gi"}]`, "cannot unmarshall IntOrPath from JSON: invalid JSONPath"},
		{"bool as max", `[{"max": true}]`,
			"cannot unmarshall IntOrPath from JSON: json: cannot unmarshal bool into Go value of type string"},
		{"number among values", `[{"values": ["virtio", 3]}]`,
			"json: cannot unmarshal number into Go struct field Rule.values of type string"},
		{"bad jsonpath among values", `[{"values": ["jsonpath::.a[*"]}]`, "unterminated array"},
		{"name not a string", `[{"name": 1}]`,
			"json: cannot unmarshal number into Go struct field Rule.name of type string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := Parse(tc.json)
			require.Error(t, err)
			require.Nil(t, rules)
			require.ErrorContains(t, err, "parse validation rules: ")
			require.Contains(t, errors.Unwrap(err).Error(), tc.upstreamText)
		})
	}
}

func TestRulesRoundTripThroughJSON(t *testing.T) {
	in := `[{"rule":"enum","name":"bus","path":"jsonpath::.spec.domain.devices.disks[*].disk.bus",` +
		`"message":"m","valid":"jsonpath::.spec.domain.devices.disks[*].disk.bus","justWarning":true,` +
		`"values":["virtio","jsonpath::.spec.domain.machine.type"],"min":1,"max":"jsonpath::.spec.domain.cpu.cores"}]`
	out, err := json.Marshal(mustParse(t, in))
	require.NoError(t, err)
	require.JSONEq(t, in, string(out))
}
