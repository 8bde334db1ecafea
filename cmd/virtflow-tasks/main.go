// Command virtflow-tasks is the Tekton tasks' step programs, one static
// binary that answers to the names upstream's task images run: create-vm,
// copy-template, modify-vm-template, modify-data-object, and entrypoint,
// which picks the task by the COMMAND variable the Task sets.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/virtflow/virtflow/tasks/copytemplate"
	"github.com/virtflow/virtflow/tasks/createvm"
	"github.com/virtflow/virtflow/tasks/diskvirt"
	"github.com/virtflow/virtflow/tasks/executeinvm"
	"github.com/virtflow/virtflow/tasks/generatesshkeys"
	"github.com/virtflow/virtflow/tasks/modifydataobject"
	"github.com/virtflow/virtflow/tasks/modifyvmtemplate"
	"github.com/virtflow/virtflow/tasks/waitforvmistatus"
)

// mainFunc is a step program's entry.
type mainFunc func(ctx context.Context, args []string) error

// programs are the step programs by the name the image runs them as.
var programs = map[string]mainFunc{
	"create-vm":          createvm.Main,
	"copy-template":      copytemplate.Main,
	"modify-vm-template": modifyvmtemplate.Main,
	"modify-data-object": modifydataobject.Main,
}

// commands are what entrypoint runs, by COMMAND.
var commands = map[string]mainFunc{
	"wait-for-vmi-status": waitforvmistatus.Main,
	"execute-in-vm":       executeinvm.Main,
	"cleanup-vm":          executeinvm.Main,
	"generate-ssh-keys":   generatesshkeys.Main,
	"disk-virt-customize": diskvirt.Main,
	"disk-virt-sysprep":   diskvirt.Main,
}

func main() {
	name, args := filepath.Base(os.Args[0]), os.Args[1:]
	// Run by its own name, the first argument names the program.
	if name == "virtflow-tasks" && len(args) > 0 {
		name, args = args[0], args[1:]
	}
	run, err := program(name)
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = run(ctx, args)
		stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitCode(err))
	}
}

// exitCode is the code upstream's programs exit with for err: some failures
// carry their own (wait-for-vmi-status exits 2 on its failure condition),
// any other is 1.
func exitCode(err error) int {
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return 1
}

// program is the step program name runs.
func program(name string) (mainFunc, error) {
	if name == "entrypoint" {
		cmd := os.Getenv("COMMAND")
		if run, ok := commands[cmd]; ok {
			return run, nil
		}
		return nil, fmt.Errorf("entrypoint: unknown COMMAND %q", cmd)
	}
	if run, ok := programs[name]; ok {
		return run, nil
	}
	return nil, fmt.Errorf("virtflow-tasks: no step program named %q", name)
}
