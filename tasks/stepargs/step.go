package stepargs

import (
	"context"
	"os"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// TaskParams reads opts, which hold Output and Debug, from the environment
// and args: the Task's parameters, the array ones being the arguments
// Tekton expands each of them into after its option, and the output
// format, checked.
func TaskParams(opts []Option, args []string) (stepenv.Params, string, error) {
	v, err := Parse(opts, args)
	if err != nil {
		return stepenv.Params{}, "", err
	}
	output := v.Strings[KeyOutput]
	if err := outputformat.Check(output); err != nil {
		return stepenv.Params{}, "", err
	}
	params := stepenv.Params{Strings: v.taskStrings()}
	if len(v.Lists) > 0 {
		params.Arrays = v.Lists
	}
	return params, output, nil
}

// PrintingTask is the work of a step that prints what it made or edited
// as --output asks: the Task's Run, with the output format.
type PrintingTask func(ctx context.Context, env stepenv.Env, params stepenv.Params, output string) error

// Run is the step program of such a Task (copy-template,
// modify-vm-template): it reads the parameters and runs task in the pod's
// environment, logging to stdout as upstream's do.
func Run(ctx context.Context, opts []Option, args []string, task PrintingTask) error {
	params, output, err := TaskParams(opts, args)
	if err != nil {
		return err
	}
	env, err := stepenv.New(stepenv.ActiveNamespace(), os.Stdout)
	if err != nil {
		return err
	}
	return task(ctx, env, params, output)
}
