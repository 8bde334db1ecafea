package typed

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/registry"
)

// ActivityBinding is an activity implementation paired with its type name.
// Its fields are unexported so that a binding only comes from a
// descriptor's Bind, which has checked the implementation's signature.
type ActivityBinding struct {
	name string
	fn   any
}

// RegisterActivities registers each bound implementation under its type
// name.
func RegisterActivities(r registry.Activities, bindings ...ActivityBinding) {
	for _, b := range bindings {
		r.RegisterActivityWithOptions(b.fn, activity.RegisterOptions{Name: b.name})
	}
}

// WorkflowBinding is a workflow function paired with its type name; like
// ActivityBinding, it only comes from a descriptor's Bind.
type WorkflowBinding struct {
	name string
	fn   any
}

// RegisterWorkflows registers each bound workflow function under its type
// name.
func RegisterWorkflows(r registry.Workflows, bindings ...WorkflowBinding) {
	for _, b := range bindings {
		r.RegisterWorkflowWithOptions(b.fn, workflow.RegisterOptions{Name: b.name})
	}
}
