// Package hco orchestrates installing a HyperConverged: create every
// component CR it owns, then wait for each to become Available, publishing
// progress for the reconciler and the Temporal Web UI.
package hco

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "github.com/virtflow/virtflow/activities/hco"
)

// InstallWorkflowName is the workflow type of the HyperConverged install.
const InstallWorkflowName = "hco.InstallHyperConverged"

// ProgressQuery returns the current InstallProgress.
const ProgressQuery = "progress"

// ProgressMemoKey is the memo field the reconciler reads progress from.
const ProgressMemoKey = "progress"

// Install steps, in order.
const (
	StepPlanning  = "Planning"
	StepCreating  = "CreatingComponents"
	StepWaiting   = "WaitingForComponents"
	StepCompleted = "Completed"
	StepCleanup   = "CleaningUp"
)

// InstallInput names the HyperConverged to install.
type InstallInput struct {
	HyperConverged acts.HyperConvergedRef
}

// ComponentProgress is one component's state in the install.
type ComponentProgress struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Created   bool   `json:"created"`
	Available bool   `json:"available"`
	Message   string `json:"message,omitempty"`
}

// InstallProgress is published as memo and answered to ProgressQuery.
type InstallProgress struct {
	Step       string              `json:"step"`
	Components []ComponentProgress `json:"components"`
}

// Done counts the components that are Available.
func (p InstallProgress) Done() int {
	n := 0
	for _, c := range p.Components {
		if c.Available {
			n++
		}
	}
	return n
}

// InstallResult lists the components installed and their versions.
type InstallResult struct {
	Components []acts.ComponentStatus
}

// InstallHyperConverged creates the component CRs and waits until each
// reports Available. Cancelling it removes what it created.
func InstallHyperConverged(ctx workflow.Context, in InstallInput) (res InstallResult, err error) {
	progress := &InstallProgress{Step: StepPlanning}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (InstallProgress, error) { return *progress, nil }); err != nil {
		return res, fmt.Errorf("registering progress query: %w", err)
	}
	var plan []acts.ComponentRef
	defer func() {
		if !errors.Is(ctx.Err(), workflow.ErrCanceled) || len(plan) == 0 {
			return
		}
		err = cleanup(ctx, progress, plan, err)
	}()
	if err := workflow.ExecuteActivity(shortOptions(ctx), acts.PlanComponentsName, in.HyperConverged).Get(ctx, &plan); err != nil {
		return res, fmt.Errorf("planning components: %w", err)
	}
	for _, c := range plan {
		progress.Components = append(progress.Components, ComponentProgress{Kind: c.Kind, Name: c.Name})
	}
	progress.Step = StepCreating
	publish(ctx, progress)
	if err := createAll(ctx, in, plan, progress); err != nil {
		return res, err
	}
	progress.Step = StepWaiting
	publish(ctx, progress)
	statuses, err := waitAll(ctx, plan, progress)
	if err != nil {
		return res, err
	}
	progress.Step = StepCompleted
	publish(ctx, progress)
	return InstallResult{Components: statuses}, nil
}

func createAll(ctx workflow.Context, in InstallInput, plan []acts.ComponentRef, progress *InstallProgress) error {
	for i, c := range plan {
		input := acts.EnsureComponentInput{HyperConverged: in.HyperConverged, Component: c}
		if err := workflow.ExecuteActivity(shortOptions(ctx), acts.EnsureComponentName, input).Get(ctx, nil); err != nil {
			return fmt.Errorf("creating %s %s: %w", c.Kind, c.Name, err)
		}
		progress.Components[i].Created = true
		publish(ctx, progress)
	}
	return nil
}

// waitAll waits for the components concurrently: they start independently,
// so the slowest one, not their sum, bounds the install.
func waitAll(ctx workflow.Context, plan []acts.ComponentRef, progress *InstallProgress) ([]acts.ComponentStatus, error) {
	futures := make([]workflow.Future, len(plan))
	for i, c := range plan {
		futures[i] = workflow.ExecuteActivity(waitOptions(ctx), acts.WaitComponentAvailableName, c)
	}
	statuses := make([]acts.ComponentStatus, len(plan))
	for i, f := range futures {
		if err := f.Get(ctx, &statuses[i]); err != nil {
			progress.Components[i].Message = err.Error()
			publish(ctx, progress)
			return nil, fmt.Errorf("waiting for %s %s to become available: %w", plan[i].Kind, plan[i].Name, err)
		}
		progress.Components[i].Available = true
		progress.Components[i].Message = statuses[i].Message
		publish(ctx, progress)
	}
	return statuses, nil
}

func cleanup(ctx workflow.Context, progress *InstallProgress, plan []acts.ComponentRef, cause error) error {
	dctx, cancel := workflow.NewDisconnectedContext(ctx)
	defer cancel()
	progress.Step = StepCleanup
	publish(dctx, progress)
	if err := workflow.ExecuteActivity(shortOptions(dctx), acts.DeleteComponentsName, plan).Get(dctx, nil); err != nil {
		return errors.Join(cause, fmt.Errorf("removing components after cancellation: %w", err))
	}
	return cause
}

// publish stores progress in the memo so DescribeWorkflowExecution (the
// reconciler, the Web UI) sees it without a query round trip to a worker.
func publish(ctx workflow.Context, p *InstallProgress) {
	if err := workflow.UpsertMemo(ctx, map[string]any{ProgressMemoKey: *p}); err != nil {
		workflow.GetLogger(ctx).Warn("publishing install progress", "error", err)
	}
}

func shortOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, MaximumInterval: 15 * time.Second,
			NonRetryableErrorTypes: []string{acts.ErrHyperConvergedGone},
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
