package ssp

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/virtflow/virtflow/contracts/registry"
)

// TaskActivities are the activities the SSP workflows call by type name on
// TaskQueue.
type TaskActivities interface {
	// RunTaskStep runs one task of the catalog as the request's service
	// account and returns its results.
	RunTaskStep(ctx context.Context, req TaskRequest) (TaskResult, error)
}

// RegisterTaskActivities binds each activity type name to its
// implementation.
func RegisterTaskActivities(r registry.Activities, a TaskActivities) {
	r.RegisterActivityWithOptions(a.RunTaskStep, activity.RegisterOptions{Name: RunTaskStepName})
}
