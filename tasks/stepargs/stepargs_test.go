package stepargs

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testOptions = []Option{
	{Long: "name", Env: "STEPARGS_TEST_NAME", Key: "name"},
	{Long: "items", Key: "items", List: true},
	{Long: "force", Env: "STEPARGS_TEST_FORCE", Key: "force", Boolean: true},
	Output, Debug,
}

func unsetenv(t *testing.T, key string) {
	t.Setenv(key, "")
	require.NoError(t, os.Unsetenv(key))
}

func TestParse(t *testing.T) {
	unsetenv(t, "STEPARGS_TEST_FORCE")
	t.Setenv("STEPARGS_TEST_NAME", "from-env")
	v, err := Parse(testOptions, []string{"--items", "a", "b c", "--force", "-o", "yaml", "--debug", "--"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"name": "from-env", "force": "true", "output": "yaml", "debug": "true"}, v.Strings)
	assert.Equal(t, map[string][]string{"items": {"a", "b c"}}, v.Lists)
	assert.Equal(t, map[string]string{"name": "from-env", "force": "true"}, v.taskStrings())

	v, err = Parse(testOptions, []string{"--name=from-args", "--items=one", "--force=false", "--output", "json"})
	require.NoError(t, err)
	assert.Equal(t, "from-args", v.Strings["name"], "the command line wins")
	assert.Equal(t, []string{"one"}, v.Lists["items"])
	assert.Equal(t, "false", v.Strings["force"])
	assert.True(t, v.Given["name"] && v.Given["items"] && v.Given["output"])
	assert.False(t, v.Given["debug"])

	v, err = Parse(testOptions, []string{"--items", "--force"})
	require.NoError(t, err)
	assert.Empty(t, v.Lists["items"], "an empty array leaves the option without values")
	assert.True(t, v.Given["items"])
}

func TestParseErrors(t *testing.T) {
	for want, args := range map[string][]string{
		"unknown argument --nope":              {"--nope"},
		"unknown argument --=x":                {"--=x"},
		"too many positional arguments at 'x'": {"x"},
		"too many positional arguments at 'y'": {"--", "y"},
		"too many positional arguments at 'z'": {"--force", "z"},
		"missing value for --name":             {"--name"},
		"missing value for -o":                 {"-o", "--debug"},
	} {
		_, err := Parse(testOptions, args)
		require.EqualError(t, err, want)
	}
}

func TestTaskParams(t *testing.T) {
	unsetenv(t, "STEPARGS_TEST_FORCE")
	unsetenv(t, "STEPARGS_TEST_NAME")
	params, output, err := TaskParams(testOptions, []string{"--name", "n", "-o", "json", "--debug"})
	require.NoError(t, err)
	assert.Equal(t, "json", output)
	assert.Equal(t, map[string]string{"name": "n"}, params.Strings, "no output or debug among the parameters")
	assert.Nil(t, params.Arrays)

	params, _, err = TaskParams(testOptions, []string{"--items", "a"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, params.Array("items"))

	_, _, err = TaskParams(testOptions, []string{"--output=yml"})
	require.EqualError(t, err, "yml is not a valid output type")
	_, _, err = TaskParams(testOptions, []string{"--nope"})
	require.EqualError(t, err, "unknown argument --nope")
}
