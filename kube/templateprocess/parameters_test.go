package templateprocess

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// envVarNameReason is apimachinery's IsEnvVarName text, which oc prints.
const envVarNameReason = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"

// TestParseParameters covers oc's NAME=VALUE parsing and its texts.
func TestParseParameters(t *testing.T) {
	tests := []struct {
		name   string
		in     []string
		values map[string]string
		err    string
	}{
		{"none", nil, map[string]string{}, ""},
		{"values", []string{"NAME=vm1", "EMPTY=", "EQ=a=b", "dot.ted-name=x"},
			map[string]string{"NAME": "vm1", "EMPTY": "", "EQ": "a=b", "dot.ted-name": "x"}, ""},
		{"no equals sign", []string{"NAME"}, nil, `invalid parameter assignment in "NAME", []`},
		{"invalid name", []string{"1NAME=x"}, nil,
			`invalid parameter assignment in "1NAME=x", [` + envVarNameReason + `]`},
		{"empty name", []string{"=x"}, nil, `invalid parameter assignment in "=x", [` + envVarNameReason + `]`},
		{"first invalid one reported", []string{"A=1", "B", "C"}, nil, `invalid parameter assignment in "B", []`},
		{"repeated names, sorted, once each", []string{"B=1", "A=1", "B=2", "A=2", "B=3"}, nil,
			"The following parameters were provided more than once: A, B"},
		{"invalid wins over repeated", []string{"A=1", "A=2", "B"}, nil, `invalid parameter assignment in "B", []`},
	}
	for _, tt := range tests {
		values, err := ParseParameters(tt.in)
		if tt.err != "" {
			require.EqualError(t, err, tt.err, tt.name)
			require.Nil(t, values, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.values, values, tt.name)
	}
}

// TestParseLabels covers oc process -l parsing and its texts.
func TestParseLabels(t *testing.T) {
	tests := []struct {
		in     string
		labels map[string]string
		err    string
	}{
		{"app=demo", map[string]string{"app": "demo"}, ""},
		{"a=1,b=,c=${P}", map[string]string{"a": "1", "b": "", "c": "${P}"}, ""},
		{"", nil, "error parsing labels: no label spec passed\n"},
		{"a", nil, "error parsing labels: unexpected label spec: a\n"},
		{"a=1=2", nil, "error parsing labels: unexpected label spec: a=1=2\n"},
		{"a=1,=2", nil, "error parsing labels: unexpected empty label key\n"},
	}
	for _, tt := range tests {
		labels, err := ParseLabels(tt.in)
		if tt.err != "" {
			require.EqualError(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.labels, labels, tt.in)
	}
}
