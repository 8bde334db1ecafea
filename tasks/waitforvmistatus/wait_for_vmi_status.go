// Package waitforvmistatus is the wait-for-vmi-status task: it waits
// until a VirtualMachineInstance fulfils a success condition (the task
// succeeds) or a failure condition (the task fails). Conditions are label
// selectors over the VMI's fields, e.g. "status.phase == Succeeded".
package waitforvmistatus

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// The Task's parameter names.
const (
	ParamVMIName          = "vmiName"
	ParamVMINamespace     = "vmiNamespace"
	ParamSuccessCondition = "successCondition"
	ParamFailureCondition = "failureCondition"
)

// Task is wait-for-vmi-status.
var Task = stepenv.Task{Name: "wait-for-vmi-status", Run: run}

// pollInterval is how often the task looks at the VMI besides watching it
// (and tells the runner it is alive); tests shorten it.
var pollInterval = 5 * time.Second

// FailureConditionError is the task's failure: the VMI fulfilled the
// failure condition.
type FailureConditionError struct {
	Namespace, Name, Condition, Phase string
}

func (e *FailureConditionError) Error() string {
	return fmt.Sprintf("VMI %s/%s fulfilled the failure condition %q (phase %q)", e.Namespace, e.Name, e.Condition, e.Phase)
}

// ExitCode is upstream's exit code for a fulfilled failure condition, for
// a step program that exits with the code its error carries.
func (e *FailureConditionError) ExitCode() int { return 2 }

// options are the task's parameters, checked.
type options struct {
	name, namespace  string
	success, failure condition
}

func run(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	o, err := parseOptions(params, env.Namespace)
	if err != nil {
		return err
	}
	if o.success.empty() && o.failure.empty() {
		return nil
	}
	return newWaiter(env, o).wait(ctx)
}

// parseOptions checks params with upstream's messages, in its order;
// activeNamespace is the namespace when the parameter is empty.
func parseOptions(params stepenv.Params, activeNamespace string) (*options, error) {
	o := &options{
		name:      strings.TrimSpace(params.String(ParamVMIName)),
		namespace: strings.TrimSpace(params.String(ParamVMINamespace)),
	}
	if o.name == "" {
		return nil, fmt.Errorf("vmi-name should not be empty")
	}
	for _, opt := range []struct{ name, value string }{{"vmi-name", o.name}, {"vmi-namespace", o.namespace}} {
		if opt.value == "" {
			continue
		}
		if errs := validation.IsDNS1123Subdomain(opt.value); len(errs) > 0 {
			return nil, fmt.Errorf("invalid %v value: %v", opt.name, strings.Join(errs, ", "))
		}
	}
	if o.namespace == "" {
		o.namespace = activeNamespace
	}
	var err error
	if o.success, err = parseCondition(params.String(ParamSuccessCondition)); err != nil {
		return nil, fmt.Errorf("success-condition: %v", err)
	}
	if o.failure, err = parseCondition(params.String(ParamFailureCondition)); err != nil {
		return nil, fmt.Errorf("failure-condition: %v", err)
	}
	return o, nil
}
