// Package executeinvm is the execute-in-vm and cleanup-vm Tekton tasks: run
// a script or a command in a VM (starting it first when it is not running)
// over SSH, or over the serial console for guests without a network; and,
// for cleanup-vm, stop and delete the VM afterwards, also when the script
// failed or ran out of time.
package executeinvm

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/virtflow/virtflow/tasks/exitcode"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// ExecuteInVM is the execute-in-vm Task.
var ExecuteInVM = stepenv.Task{Name: "execute-in-vm", Run: defaultRunner.run}

// CleanupVM is the cleanup-vm Task: execute-in-vm with stop, delete and
// timeout.
var CleanupVM = stepenv.Task{Name: "cleanup-vm", Run: defaultRunner.run}

// Main is the step program of both Tasks, which upstream runs as
// `entrypoint` with COMMAND=execute-in-vm and tells apart only by their
// arguments: cleanup-vm passes --stop, --delete and --timeout (or
// COMMAND=cleanup-vm). A failure carries upstream's exit code (ExitCode).
func Main(ctx context.Context, args []string) error {
	params, cleanup, err := parseArgs(args, os.Getenv)
	if err != nil {
		return exitcode.With(err, exitInvalidArguments)
	}
	task := ExecuteInVM
	if cleanup || os.Getenv("COMMAND") == CleanupVM.Name {
		task = CleanupVM
	}
	env, err := stepenv.New(stepenv.ActiveNamespace(), os.Stdout)
	if err != nil {
		return exitcode.With(err, exitInitialization)
	}
	return task.Run(ctx, env, params)
}

// argFlags maps upstream's flags to the Tasks' parameters.
var argFlags = map[string]string{
	"--vm-name": "vmName", "--vm-namespace": "vmNamespace", "--script": "script",
	"--connectionSecretName": "secretName", "--stop": "stop", "--delete": "delete", "--timeout": "timeout",
}

// argEnv maps upstream's variables to the parameters; a flag wins.
var argEnv = map[string]string{
	"VM_NAME": "vmName", "VM_NAMESPACE": "vmNamespace", "EXECUTE_SCRIPT": "script",
	"CONNECTION_SECRET_NAME": "secretName",
}

// parseArgs reads upstream's command line (flags as --flag value or
// --flag=value, then the command after --) and variables; cleanup says
// whether cleanup-vm's flags were given.
func parseArgs(args []string, getenv func(string) string) (params stepenv.Params, cleanup bool, err error) {
	params = stepenv.Params{Strings: map[string]string{}, Arrays: map[string][]string{}}
	for name, param := range argEnv {
		if v := getenv(name); v != "" {
			params.Strings[param] = v
		}
	}
	var command []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			command = append(command, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "--") {
			command = append(command, a)
			continue
		}
		if a == "--debug" {
			continue
		}
		flag, value, inline := strings.Cut(a, "=")
		param, ok := argFlags[flag]
		if !ok {
			return params, false, fmt.Errorf("unknown argument %s", a)
		}
		if !inline {
			if i+1 >= len(args) {
				return params, false, fmt.Errorf("missing value for %s", flag)
			}
			i++
			value = args[i]
		}
		params.Strings[param] = value
		cleanup = cleanup || param == "stop" || param == "delete" || param == "timeout"
	}
	params.Arrays["command"] = command
	return params, cleanup, nil
}
