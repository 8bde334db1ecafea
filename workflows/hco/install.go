// Package hco orchestrates installing and uninstalling a HyperConverged:
// create every component CR it owns and wait for each to become Available,
// or delete them and wait until they are gone, publishing progress for the
// reconciler and the Temporal Web UI.
package hco

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/typed"
)

// InstallHyperConverged creates the component CRs and waits until each
// reports Available. Cancelling it removes what it created.
func InstallHyperConverged(ctx workflow.Context, in hco.InstallInput) (res hco.InstallResult, err error) {
	progress := &hco.InstallProgress{Step: hco.StepPlanning}
	if err := workflow.SetQueryHandler(ctx, hco.ProgressQuery, func() (hco.InstallProgress, error) { return *progress, nil }); err != nil {
		return res, fmt.Errorf("registering progress query: %w", err)
	}
	var plan []hco.ComponentRef
	defer func() {
		if !errors.Is(ctx.Err(), workflow.ErrCanceled) || len(plan) == 0 {
			return
		}
		err = cleanup(ctx, progress, plan, err)
	}()
	// plan is assigned, not declared, here: the deferred cleanup reads it.
	if plan, err = hco.PlanComponents.Execute(shortOptions(ctx), in.HyperConverged); err != nil {
		return res, fmt.Errorf("planning components: %w", err)
	}
	for _, c := range plan {
		progress.Components = append(progress.Components, hco.ComponentProgress{Kind: c.Kind, Name: c.Name})
	}
	progress.Step = hco.StepCreating
	publish(ctx, progress)
	if err := createAll(ctx, in, plan, progress); err != nil {
		return res, err
	}
	progress.Step = hco.StepWaiting
	publish(ctx, progress)
	statuses, err := waitAll(ctx, plan, progress)
	if err != nil {
		return res, err
	}
	progress.Step = hco.StepCompleted
	publish(ctx, progress)
	return hco.InstallResult{Components: statuses}, nil
}

func createAll(ctx workflow.Context, in hco.InstallInput, plan []hco.ComponentRef, progress *hco.InstallProgress) error {
	for i, c := range plan {
		input := hco.EnsureComponentInput{HyperConverged: in.HyperConverged, Component: c}
		if err := hco.EnsureComponent.Execute(shortOptions(ctx), input); err != nil {
			return fmt.Errorf("creating %s %s: %w", c.Kind, c.Name, err)
		}
		progress.Components[i].Created = true
		publish(ctx, progress)
	}
	return nil
}

// waitAll waits for the components concurrently: they start independently,
// so the slowest one, not their sum, bounds the install.
func waitAll(ctx workflow.Context, plan []hco.ComponentRef, progress *hco.InstallProgress) ([]hco.ComponentStatus, error) {
	futures := make([]typed.Future[hco.ComponentStatus], len(plan))
	for i, c := range plan {
		futures[i] = hco.WaitComponentAvailable.Start(waitOptions(ctx), c)
	}
	statuses := make([]hco.ComponentStatus, len(plan))
	for i, f := range futures {
		status, err := f.Get(ctx)
		if err != nil {
			progress.Components[i].Message = err.Error()
			publish(ctx, progress)
			return nil, fmt.Errorf("waiting for %s %s to become available: %w", plan[i].Kind, plan[i].Name, err)
		}
		statuses[i] = status
		progress.Components[i].Available = true
		progress.Components[i].Message = status.Message
		publish(ctx, progress)
	}
	return statuses, nil
}

func cleanup(ctx workflow.Context, progress *hco.InstallProgress, plan []hco.ComponentRef, cause error) error {
	dctx, cancel := workflow.NewDisconnectedContext(ctx)
	defer cancel()
	progress.Step = hco.StepCleanup
	publish(dctx, progress)
	if err := hco.DeleteComponents.Execute(shortOptions(dctx), plan); err != nil {
		return errors.Join(cause, fmt.Errorf("removing components after cancellation: %w", err))
	}
	return cause
}

// publish stores progress in the memo so DescribeWorkflowExecution (the
// reconciler, the Web UI) sees it without a query round trip to a worker.
func publish(ctx workflow.Context, p *hco.InstallProgress) {
	if err := workflow.UpsertMemo(ctx, map[string]any{hco.ProgressMemoKey: *p}); err != nil {
		workflow.GetLogger(ctx).Warn("publishing install progress", "error", err)
	}
}

func shortOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, MaximumInterval: 15 * time.Second,
			NonRetryableErrorTypes: []string{hco.ErrHyperConvergedGone},
		},
	})
}

// waitOptions allow a long wait but a short heartbeat, so a killed worker's
// wait is picked up by another worker within seconds.
func waitOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 20 * time.Minute,
		HeartbeatTimeout:    15 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 15 * time.Second},
	})
}
