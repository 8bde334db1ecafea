// Package registry names what workflows and activities are registered on:
// a Temporal worker, a test environment or a replayer.
package registry

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"
)

// Activities is the part of a worker or test environment that activities
// are registered on.
type Activities interface {
	// RegisterActivityWithOptions registers an activity under a name.
	RegisterActivityWithOptions(a interface{}, options activity.RegisterOptions)
}

// Workflows is the part of a worker, test environment or replayer that
// workflows are registered on.
type Workflows interface {
	// RegisterWorkflowWithOptions registers a workflow function under a name.
	RegisterWorkflowWithOptions(w interface{}, options workflow.RegisterOptions)
}
