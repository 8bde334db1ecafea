package diskvirt

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// fakeTool is a tool on a disk and appliance in a temporary directory that
// records what it would run, reading the commands file while it exists.
type fakeTool struct {
	tool
	ran      []process
	commands string
	result   error
}

func newFakeTool(t *testing.T, program string) *fakeTool {
	dir := t.TempDir()
	disk := filepath.Join(dir, "disk.img")
	appliance := filepath.Join(dir, "appliance")
	require.NoError(t, os.WriteFile(disk, []byte("disk"), 0o644))
	require.NoError(t, os.Mkdir(appliance, 0o755))
	f := &fakeTool{}
	f.tool = tool{program: program, disk: disk, appliance: func() string { return appliance }}
	f.exec = func(_ context.Context, p process) error {
		f.ran = append(f.ran, p)
		b, err := os.ReadFile(p.Args[3])
		require.NoError(t, err)
		f.commands = string(b)
		_, _ = p.Log.Write([]byte("[   0.0] Examining the guest ...\n"))
		return f.result
	}
	return f
}

func params(kv ...string) stepenv.Params {
	p := stepenv.Params{Strings: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Strings[kv[i]] = kv[i+1]
	}
	return p
}

func TestRunWritesCommandsAndRunsTheTool(t *testing.T) {
	f := newFakeTool(t, "virt-customize")
	var log bytes.Buffer
	env := stepenv.Env{Log: &log}
	err := f.run(context.Background(), env, params("virtCommands", "write /x:y\nrun-command echo hi",
		"additionalVirtOptions", `--hostname 'my host' --no-network`, "verbose", "true"))
	require.NoError(t, err)
	require.Len(t, f.ran, 1)
	p := f.ran[0]
	assert.Equal(t, "virt-customize", p.Program)
	assert.Equal(t, []string{"--add", f.disk, "--commands-from-file", p.Args[3],
		"--hostname", "my host", "--no-network", "--verbose", "-x"}, p.Args)
	assert.Equal(t, "write /x:y\nrun-command echo hi", f.commands)
	assert.Contains(t, p.Env, "LIBGUESTFS_PATH="+f.appliance())
	assert.Contains(t, log.String(), "executing virt-customize --add "+f.disk)
	assert.Contains(t, log.String(), "Examining the guest")
	assert.NoFileExists(t, p.Args[3], "the commands file is removed afterwards")
}

func TestRunSysprep(t *testing.T) {
	f := newFakeTool(t, "virt-sysprep")
	require.NoError(t, f.run(context.Background(), stepenv.Env{}, params("virtCommands", "delete /tmp/x")))
	assert.Equal(t, "virt-sysprep", f.ran[0].Program)
	assert.Equal(t, []string{"--add", f.disk, "--commands-from-file", f.ran[0].Args[3]}, f.ran[0].Args)
}

func TestRunChecks(t *testing.T) {
	f := newFakeTool(t, "virt-customize")
	ctx := context.Background()
	err := f.run(ctx, stepenv.Env{}, params("verbose", "true"))
	assert.EqualError(t, err, "virt-commands option or VIRT_COMMANDS env variable is required")

	err = f.run(ctx, stepenv.Env{}, params("virtCommands", "update", "additionalVirtOptions", `--hostname 'x`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "additionalVirtOptions: unbalanced quotes")

	missing := f.tool
	missing.appliance = func() string { return "/nonexistent/appliance" }
	err = missing.run(ctx, stepenv.Env{}, params("virtCommands", "update"))
	assert.EqualError(t, err, "guestfs appliance is missing at /nonexistent/appliance")

	missing = f.tool
	missing.disk = "/nonexistent/disk.img"
	err = missing.run(ctx, stepenv.Env{}, params("virtCommands", "update"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disk image is missing at /nonexistent/disk.img")
	assert.Empty(t, f.ran, "nothing ran")
}

func TestRunReportsTheExitStatus(t *testing.T) {
	f := newFakeTool(t, "virt-customize")
	f.result = errors.New("exit status 1")
	err := f.run(context.Background(), stepenv.Env{}, params("virtCommands", "update"))
	assert.EqualError(t, err, "exit status 1")
	assert.Equal(t, 253, exitCode(t, err))
}

func exitCode(t *testing.T, err error) int {
	var coded interface{ ExitCode() int }
	require.ErrorAs(t, err, &coded)
	return coded.ExitCode()
}

func TestRunExitCodesAreUpstreams(t *testing.T) {
	f := newFakeTool(t, "virt-customize")
	assert.Equal(t, 255, exitCode(t, f.run(context.Background(), stepenv.Env{}, params())))
	noAppliance := f.tool
	noAppliance.appliance = func() string { return "/nonexistent" }
	assert.Equal(t, 254, exitCode(t, noAppliance.run(context.Background(), stepenv.Env{}, params("virtCommands", "update"))))
	noDisk := f.tool
	noDisk.disk = "/nonexistent"
	assert.Equal(t, 253, exitCode(t, noDisk.run(context.Background(), stepenv.Env{}, params("virtCommands", "update"))))
}

func TestBuildArgsVerbose(t *testing.T) {
	base := []string{"--add", "d", "--commands-from-file", "c"}
	cases := []struct {
		extra   []string
		verbose bool
		want    []string
	}{
		{nil, false, nil},
		{[]string{"--network", "--dry-run"}, false, []string{"--network", "--dry-run"}},
		{[]string{"--network", "--dry-run", "-q", "-v"}, true, []string{"--network", "--dry-run", "-q", "-v", "-x"}},
		{nil, true, []string{"--verbose", "-x"}},
		{[]string{"--verbose", "-x"}, true, []string{"--verbose", "-x"}},
		{[]string{"-vx"}, true, []string{"-vx", "-x"}},
	}
	for _, c := range cases {
		got := buildArgs("d", "c", c.extra, c.verbose)
		assert.Equal(t, append(append([]string{}, base...), c.want...), got, "%v %v", c.extra, c.verbose)
	}
}

func TestChildEnv(t *testing.T) {
	env := childEnv([]string{"HOME=/h", "LIBGUESTFS_PATH=/old"}, "/app")
	assert.Equal(t, []string{"HOME=/h", "LIBGUESTFS_PATH=/app", "LIBGUESTFS_BACKEND=direct"}, env)
	env = childEnv([]string{"LIBGUESTFS_BACKEND=libvirt"}, "/app")
	assert.Equal(t, []string{"LIBGUESTFS_BACKEND=libvirt", "LIBGUESTFS_PATH=/app"}, env)
}

func TestParseArgs(t *testing.T) {
	vars := map[string]string{"VIRT_COMMANDS": "update", "ADDITIONAL_VIRT_OPTIONS": "-q"}
	p, err := parseArgs([]string{"--verbose", "true"}, func(k string) string { return vars[k] })
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"virtCommands": "update", "additionalVirtOptions": "-q", "verbose": "true"}, p.Strings)

	p, err = parseArgs([]string{"--verbose=false", "--virt-commands", "x"}, func(string) string { return "" })
	require.NoError(t, err)
	assert.Equal(t, "false", p.String("verbose"))
	assert.Equal(t, "x", p.String("virtCommands"))

	_, err = parseArgs([]string{"--verbose"}, func(string) string { return "" })
	assert.EqualError(t, err, "missing value for --verbose")
	_, err = parseArgs([]string{"--bogus", "1"}, func(string) string { return "" })
	assert.EqualError(t, err, "unknown argument --bogus")
}

func TestMainNeedsACommand(t *testing.T) {
	t.Setenv("COMMAND", "disk-virt-other")
	err := Main(context.Background(), nil)
	assert.EqualError(t, err, `COMMAND is "disk-virt-other": want disk-virt-customize or disk-virt-sysprep`)
}

func TestTasks(t *testing.T) {
	assert.Equal(t, "disk-virt-customize", Customize.Name)
	assert.Equal(t, "disk-virt-sysprep", Sysprep.Name)
}
