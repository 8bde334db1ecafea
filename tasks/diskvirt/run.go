package diskvirt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/virtflow/virtflow/tasks/exitcode"
	"github.com/virtflow/virtflow/tasks/shellwords"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// aliveEvery is how often a running tool is reported alive.
const aliveEvery = 5 * time.Second

// tool runs one libguestfs program; tests replace disk, appliance and exec.
type tool struct {
	program   string
	disk      string
	appliance func() string
	exec      func(ctx context.Context, p process) error
}

// run is the Tasks' body; a failure without upstream's particular exit
// code has its generic one.
func (t tool) run(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	err := t.runTool(ctx, env, params)
	if _, coded := exitcode.Of(err); err == nil || coded {
		return err
	}
	return exitcode.With(err, exitFailed)
}

// runTool checks the parameters as upstream does (commands, then the
// appliance), writes the commands to a file and runs the tool on the disk.
func (t tool) runTool(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	commands := params.String("virtCommands")
	if commands == "" {
		return exitcode.With(errors.New("virt-commands option or VIRT_COMMANDS env variable is required"), exitInvalidArguments)
	}
	appliance := t.appliance()
	if _, err := os.Stat(appliance); os.IsNotExist(err) {
		return exitcode.With(fmt.Errorf("guestfs appliance is missing at %v", appliance), exitNoAppliance)
	}
	// Upstream leaves this to the tool, whose message does not say which
	// file it wanted.
	if _, err := os.Stat(t.disk); err != nil {
		return fmt.Errorf("disk image is missing at %v: the claim must hold disk.img (%w)", t.disk, err)
	}
	extra, err := shellwords.Split(params.String("additionalVirtOptions"))
	if err != nil {
		return fmt.Errorf("additionalVirtOptions: %w", err)
	}
	file, err := writeCommands(commands)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	verbose := strings.ToLower(params.String("verbose")) == "true"
	args := buildArgs(t.disk, file, extra, verbose)
	env.Logf("executing %s %s", t.program, strings.Join(args, " "))
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	return t.execAlive(ctx, env, process{Program: t.program, Args: args, Env: childEnv(os.Environ(), appliance), Log: log})
}

// execAlive runs p, telling env it is alive while p runs.
func (t tool) execAlive(ctx context.Context, env stepenv.Env, p process) error {
	stop := env.KeepAlive("running "+t.program, aliveEvery)
	defer stop()
	return t.exec(ctx, p)
}

// buildArgs is upstream's command line: the disk and the commands file,
// then the extra options, then --verbose and -x when verbose unless the
// extra options already ask for them.
func buildArgs(disk, commandsFile string, extra []string, verbose bool) []string {
	args := append([]string{"--add", disk, "--commands-from-file", commandsFile}, extra...)
	if !verbose {
		return args
	}
	if !hasOption(extra, "-v") && !hasOption(extra, "--verbose") {
		args = append(args, "--verbose")
	}
	if !hasOption(extra, "-x") {
		args = append(args, "-x")
	}
	return args
}

// hasOption reports whether opts has option: a short option also counts
// with its value attached (-vx), a long one also as --name=value.
func hasOption(opts []string, option string) bool {
	short := len(option) == 2
	for _, o := range opts {
		if short && strings.HasPrefix(o, option) {
			return true
		}
		if !short && (o == option || strings.HasPrefix(o, option+"=")) {
			return true
		}
	}
	return false
}

// childEnv is base with LIBGUESTFS_PATH at the fixed appliance and the
// direct backend unless the step chose another (the Task sets it).
func childEnv(base []string, appliance string) []string {
	env := make([]string, 0, len(base)+2)
	backend := false
	for _, kv := range base {
		if strings.HasPrefix(kv, "LIBGUESTFS_PATH=") {
			continue
		}
		if strings.HasPrefix(kv, "LIBGUESTFS_BACKEND=") {
			backend = true
		}
		env = append(env, kv)
	}
	env = append(env, "LIBGUESTFS_PATH="+appliance)
	if !backend {
		env = append(env, "LIBGUESTFS_BACKEND=direct")
	}
	return env
}

// writeCommands stores the commands where the tool can read them.
func writeCommands(commands string) (string, error) {
	f, err := os.CreateTemp("", "virt_commands")
	if err != nil {
		return "", fmt.Errorf("creating the commands file: %w", err)
	}
	defer f.Close()
	if _, err := io.WriteString(f, commands); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing the commands file: %w", err)
	}
	return f.Name(), nil
}
