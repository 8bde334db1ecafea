package hco

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	acts "github.com/virtflow/virtflow/activities/hco"
)

// Registry is the part of a Temporal worker (or test environment) that
// workflows and activities are registered on.
type Registry interface {
	// RegisterWorkflowWithOptions registers a workflow function under a name.
	RegisterWorkflowWithOptions(w interface{}, options workflow.RegisterOptions)
	// RegisterActivityWithOptions registers an activity function under a name.
	RegisterActivityWithOptions(a interface{}, options activity.RegisterOptions)
}

func workflowOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: InstallWorkflowName}
}

// Register adds the install workflow and its activities to r.
func Register(r Registry, a *acts.Activities) {
	r.RegisterWorkflowWithOptions(InstallHyperConverged, workflowOptions())
	r.RegisterActivityWithOptions(a.PlanComponents, activity.RegisterOptions{Name: acts.PlanComponentsName})
	r.RegisterActivityWithOptions(a.EnsureComponent, activity.RegisterOptions{Name: acts.EnsureComponentName})
	r.RegisterActivityWithOptions(a.WaitComponentAvailable, activity.RegisterOptions{Name: acts.WaitComponentAvailableName})
	r.RegisterActivityWithOptions(a.DeleteComponents, activity.RegisterOptions{Name: acts.DeleteComponentsName})
}
