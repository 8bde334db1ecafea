// Package diskvirt is the disk-virt-customize and disk-virt-sysprep Tekton
// tasks: they run virt-customize or virt-sysprep with the task's commands
// on the disk image of the claim the Task mounts at /mnt/targetpvc. They
// only run in the disk-virt image, which has the libguestfs tools and a
// fixed appliance; the durable runner starts that image rather than running
// them in its own process.
package diskvirt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/virtflow/virtflow/tasks/exitcode"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

const (
	// DiskImagePath is the disk image the Tasks work on: disk.img on the
	// claim mounted at /mnt/targetpvc, as CDI lays out a filesystem claim.
	DiskImagePath = "/mnt/targetpvc/disk.img"
	// ApplianceDir is where the disk-virt image keeps its fixed libguestfs
	// appliance (hack/libguestfs-base.sh builds it there).
	ApplianceDir = "/usr/local/lib/guestfs/appliance"
	// applianceEnv overrides ApplianceDir, as upstream's image allows.
	applianceEnv = "LIBGUESTFS_APPLIANCE_ARCHIVE_PATH"
)

// Customize is the disk-virt-customize Task: virt-customize with
// virtCommands in --commands-from-file format.
var Customize = stepenv.Task{Name: "disk-virt-customize", Run: newTool("virt-customize").run}

// Sysprep is the disk-virt-sysprep Task: virt-sysprep's default operations
// plus virtCommands in --commands-from-file format.
var Sysprep = stepenv.Task{Name: "disk-virt-sysprep", Run: newTool("virt-sysprep").run}

// newTool is a Task body running program on DiskImagePath for real.
func newTool(program string) tool {
	return tool{program: program, disk: DiskImagePath, appliance: applianceDir, exec: runProcess}
}

func applianceDir() string {
	if dir := os.Getenv(applianceEnv); dir != "" {
		return dir
	}
	return ApplianceDir
}

// process is one run of a libguestfs tool.
type process struct {
	Program string
	Args    []string
	Env     []string
	// Log receives stdout and stderr, through one pipe so their lines
	// stay in order.
	Log io.Writer
}

// runProcess starts p and waits for it; the error of a failed run is the
// exit status ("exit status 1"), which upstream reports as is.
func runProcess(ctx context.Context, p process) error {
	cmd := exec.CommandContext(ctx, p.Program, p.Args...)
	cmd.Env = p.Env
	cmd.Stdout = p.Log
	cmd.Stderr = p.Log
	return cmd.Run()
}

// Main is the step program both Tasks' images run as `entrypoint`, which
// picks the Task by the COMMAND variable (disk-virt-customize or
// disk-virt-sysprep).
func Main(ctx context.Context, args []string) error {
	switch cmd := os.Getenv("COMMAND"); cmd {
	case Customize.Name:
		return MainCustomize(ctx, args)
	case Sysprep.Name:
		return MainSysprep(ctx, args)
	default:
		return fmt.Errorf("COMMAND is %q: want %s or %s", cmd, Customize.Name, Sysprep.Name)
	}
}

// MainCustomize is disk-virt-customize's step program.
func MainCustomize(ctx context.Context, args []string) error { return mainFor(ctx, Customize, args) }

// MainSysprep is disk-virt-sysprep's step program.
func MainSysprep(ctx context.Context, args []string) error { return mainFor(ctx, Sysprep, args) }

// mainFor reads the step's arguments and variables as upstream's Task YAML
// passes them (--verbose, VIRT_COMMANDS, ADDITIONAL_VIRT_OPTIONS). It needs
// no API client: the claim is already mounted.
func mainFor(ctx context.Context, task stepenv.Task, args []string) error {
	params, err := parseArgs(args, os.Getenv)
	if err != nil {
		return exitcode.With(err, exitInvalidArguments)
	}
	env := stepenv.Env{Namespace: stepenv.ActiveNamespace(), Results: &stepenv.Results{}, Log: os.Stdout}
	return task.Run(ctx, env, params)
}

// parseArgs takes upstream's flags (--verbose, and --virt-commands and
// --additional-virt-options, which override their variables), in the
// --flag value or --flag=value forms.
func parseArgs(args []string, getenv func(string) string) (stepenv.Params, error) {
	p := stepenv.Params{Strings: map[string]string{
		"virtCommands":          getenv("VIRT_COMMANDS"),
		"additionalVirtOptions": getenv("ADDITIONAL_VIRT_OPTIONS"),
	}}
	names := map[string]string{"--verbose": "verbose", "--virt-commands": "virtCommands",
		"--additional-virt-options": "additionalVirtOptions"}
	for i := 0; i < len(args); i++ {
		flag, value, inline := strings.Cut(args[i], "=")
		param, ok := names[flag]
		if !ok {
			return p, fmt.Errorf("unknown argument %s", args[i])
		}
		if !inline {
			if i+1 >= len(args) {
				return p, fmt.Errorf("missing value for %s", flag)
			}
			i++
			value = args[i]
		}
		p.Strings[param] = value
	}
	return p, nil
}
