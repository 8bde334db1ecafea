package waitforvmistatus

import (
	"context"
	"fmt"
	"os"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// envParams maps the environment variables the Task's step sets to the
// Task's parameters.
var envParams = map[string]string{
	"VMI_NAME":          ParamVMIName,
	"VMI_NAMESPACE":     ParamVMINamespace,
	"SUCCESS_CONDITION": ParamSuccessCondition,
	"FAILURE_CONDITION": ParamFailureCondition,
}

// Main is the wait-for-vmi-status step program: the parameters come from
// the environment; args (the program's arguments) may only ask for debug
// logs (--debug).
func Main(ctx context.Context, args []string) error {
	for _, arg := range args {
		if arg != "--debug" {
			return fmt.Errorf("unknown argument %s", arg)
		}
	}
	params := stepenv.Params{Strings: map[string]string{}}
	for envName, param := range envParams {
		if v, ok := os.LookupEnv(envName); ok {
			params.Strings[param] = v
		}
	}
	active := stepenv.ActiveNamespace()
	// Bad input is reported before any cluster access, as upstream.
	if _, err := parseOptions(params, active); err != nil {
		return err
	}
	env, err := stepenv.New(active, os.Stderr)
	if err != nil {
		return err
	}
	return Task.Run(ctx, env, params)
}
