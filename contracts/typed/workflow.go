package typed

import (
	"go.temporal.io/sdk/workflow"
)

// Workflow is a workflow type name bound to its input's and its result's
// types.
type Workflow[In, Out any] struct {
	// Name is the workflow type, as histories and starters name it.
	Name string
}

// Bind pairs the workflow function with the type name; only a function of
// the descriptor's signature compiles.
func (w Workflow[In, Out]) Bind(fn func(workflow.Context, In) (Out, error)) WorkflowBinding {
	return WorkflowBinding{name: w.Name, fn: fn}
}

// VoidWorkflow is a workflow type name bound to its input's type; the
// workflow returns only an error.
type VoidWorkflow[In any] struct {
	// Name is the workflow type, as histories and starters name it.
	Name string
}

// Bind pairs the workflow function with the type name; only a function of
// the descriptor's signature compiles.
func (w VoidWorkflow[In]) Bind(fn func(workflow.Context, In) error) WorkflowBinding {
	return WorkflowBinding{name: w.Name, fn: fn}
}
