package ssp

import (
	"context"

	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
)

// TaskActivities are the activities the SSP workflows call by type name on
// TaskQueue.
type TaskActivities interface {
	// RunTaskStep runs one task of the catalog as the request's service
	// account and returns its results.
	RunTaskStep(ctx context.Context, req TaskRequest) (TaskResult, error)
}

// RegisterTaskActivities binds each activity to its implementation,
// through the typed descriptors so that a signature that drifted from the
// workflows' calls does not compile.
func RegisterTaskActivities(r registry.Activities, a TaskActivities) {
	typed.RegisterActivities(r, RunTaskStep.Bind(a.RunTaskStep))
}
