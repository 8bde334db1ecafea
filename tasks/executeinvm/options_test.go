package executeinvm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

func params(command []string, kv ...string) stepenv.Params {
	p := stepenv.Params{Strings: map[string]string{}, Arrays: map[string][]string{"command": command}}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Strings[kv[i]] = kv[i+1]
	}
	return p
}

func TestParseOptions(t *testing.T) {
	o, err := parseOptions(params([]string{"ls", "-l"}, "vmName", "vm", "secretName", "s", "vmNamespace", " other ",
		"stop", "true", "delete", "false", "timeout", "1h2m"), "active")
	require.NoError(t, err)
	assert.Equal(t, options{vmName: "vm", vmNamespace: "other", secretName: "s", script: "ls -l", stop: true,
		timeout: time.Hour + 2*time.Minute}, o)

	o, err = parseOptions(params(nil, "vmName", "vm", "delete", "true", "secretName", "__empty__"), "active")
	require.NoError(t, err)
	assert.Equal(t, options{vmName: "vm", vmNamespace: "active", secretName: "__empty__", delete: true}, o)

	p := params([]string{"systemctl"}, "vmName", "vm", "secretName", "s")
	p.Arrays["args"] = []string{"start", "db"}
	o, err = parseOptions(p, "active")
	require.NoError(t, err)
	assert.Equal(t, "systemctl start db", o.script)
}

func TestParseOptionsErrors(t *testing.T) {
	cases := []struct {
		params stepenv.Params
		want   string
	}{
		{params(nil, "script", "x"), "missing value for vm-name option"},
		{params(nil, "vmName", "Bad_Name"), "vm-name is not a valid name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
		{params([]string{"ls"}, "vmName", "vm", "script", "x"), "only one of command|script options is allowed"},
		{params(nil, "vmName", "vm"), "no action was specified: at least one of the following options is required: command|script|stop|delete"},
		{params(nil, "vmName", "vm", "stop", "yes"), "no action was specified: at least one of the following options is required: command|script|stop|delete"},
		{params(nil, "vmName", "vm", "script", "x"), "connection secret should not be empty"},
		{params([]string{"ls"}, "vmName", "vm", "secretName", "__empty__"), "connection secret should not be empty"},
		{params(nil, "vmName", "vm", "script", "x", "secretName", "Bad!"), "connection secret does not have a valid name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
		{params(nil, "vmName", "vm", "stop", "true", "timeout", "30"), `could not parse timeout: time: missing unit in duration "30"`},
		{params(nil, "vmName", "vm", "stop", "TRUE"), "invalid option stop TRUE, only true|false is allowed"},
		{params(nil, "vmName", "vm", "stop", "true", "delete", "no"), "invalid option delete no, only true|false is allowed"},
	}
	for _, c := range cases {
		_, err := parseOptions(c.params, "active")
		assert.EqualError(t, err, c.want, "%v", c.params.Strings)
	}
}

func TestParseArgs(t *testing.T) {
	vars := map[string]string{"VM_NAME": "vm", "VM_NAMESPACE": "ns", "EXECUTE_SCRIPT": "", "CONNECTION_SECRET_NAME": "s"}
	getenv := func(k string) string { return vars[k] }

	p, cleanup, err := parseArgs([]string{"--", "systemctl", "start", "db"}, getenv)
	require.NoError(t, err)
	assert.False(t, cleanup)
	assert.Equal(t, map[string]string{"vmName": "vm", "vmNamespace": "ns", "secretName": "s"}, p.Strings)
	assert.Equal(t, []string{"systemctl", "start", "db"}, p.Array("command"))

	p, cleanup, err = parseArgs([]string{"--stop", "true", "--delete", "false", "--timeout=30m", "--"}, getenv)
	require.NoError(t, err)
	assert.True(t, cleanup)
	assert.Equal(t, "true", p.String("stop"))
	assert.Equal(t, "false", p.String("delete"))
	assert.Equal(t, "30m", p.String("timeout"))
	assert.Empty(t, p.Array("command"))

	p, _, err = parseArgs([]string{"--vm-name", "other", "--debug", "--", "--stop"}, getenv)
	require.NoError(t, err)
	assert.Equal(t, "other", p.String("vmName"), "a flag wins over its variable")
	assert.Equal(t, []string{"--stop"}, p.Array("command"), "after -- everything is the command")

	_, _, err = parseArgs([]string{"--stop"}, getenv)
	assert.EqualError(t, err, "missing value for --stop")
	_, _, err = parseArgs([]string{"--bogus", "x"}, getenv)
	assert.EqualError(t, err, "unknown argument --bogus")
}

func TestTasks(t *testing.T) {
	assert.Equal(t, "execute-in-vm", ExecuteInVM.Name)
	assert.Equal(t, "cleanup-vm", CleanupVM.Name)
}
