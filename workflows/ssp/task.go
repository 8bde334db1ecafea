// Package ssp orchestrates the durable Tekton tasks: a CustomRun's task as
// one workflow, and the template pipeline (create a VM from a template,
// wait for it, execute in it, clean it up) as another, each task one
// activity so that a finished task is not done again after a crash.
package ssp

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// RunTektonTask runs one task of the catalog as the request's service
// account. A worker that dies mid-task is noticed by the heartbeat timeout
// and the task runs again (the tasks are written to be run again); a
// failure of the task itself ends the workflow with the task's own words.
// Cancelling it cancels the task and waits until it has stopped.
func RunTektonTask(ctx workflow.Context, req ssp.TaskRequest) (ssp.TaskResult, error) {
	p, err := newProgress(ctx)
	if err != nil {
		return ssp.TaskResult{}, err
	}
	if err := p.task(ctx, req.Task); err != nil {
		return ssp.TaskResult{}, err
	}
	act := workflow.WithActivityOptions(ctx, taskOptions())
	// Not wrapped: the failure's message is the CustomRun's as it is.
	res, err := ssp.RunTaskStep.Execute(act, req)
	if err != nil {
		return res, err
	}
	return res, p.completed(ctx, fmt.Sprintf("Task %s completed", req.Task))
}

// taskOptions run a task for as long as it takes: its CustomRun's timeout
// is what cancels it. The heartbeat timeout notices a lost worker; only
// failures to reach the API server are retried, the task's own are final.
func taskOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    30 * time.Second,
		// A cleanup after cancellation must not race a task that has
		// not noticed it yet.
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			NonRetryableErrorTypes: []string{ssp.ErrTypeUnknownTask, ssp.ErrTypeInvalidParams, ssp.ErrTypeTaskFailed},
		},
	}
}
