// Package cdi orchestrates CDI's data operations: each DataVolume import
// is a workflow whose data path runs on the node that holds the volume.
package cdi

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/typed"
)

// ImportDataVolume writes the source into the volume on its node. A
// crashed worker's attempt is retried and resumes from its last heartbeat
// checkpoint; a source that is down is retried until the DataVolume is
// deleted (the reconciler shows the last failure); what can never succeed
// fails the workflow. Cancelling it removes the partial disk and scratch
// files.
func ImportDataVolume(ctx workflow.Context, in cdi.ImportInput) (cdi.ImportResult, error) {
	return fillVolume(ctx, fill[cdi.ImportRequest]{dataVolume: in.DataVolume, node: in.Node, activity: cdi.ImportDisk, input: in.Request, cleanup: in.Request})
}

// fill is one data-path activity into a volume on its node; it is generic
// so that the activity and its input are checked against each other.
type fill[In any] struct {
	dataVolume, node string
	activity         typed.Activity[In, cdi.ImportResult]
	input            In
	// cleanup names the volume and scratch space to clear.
	cleanup cdi.ImportRequest
}

// fillVolume runs the data-path activity, with cleanup of partial data
// when cancelled.
func fillVolume[In any](ctx workflow.Context, in fill[In]) (res cdi.ImportResult, err error) {
	pr := newProgress(ctx, in.activity.Name)
	if err := pr.publish(ctx, cdi.ImportProgress{Step: cdi.StepImporting}); err != nil {
		return res, err
	}
	node := workflow.WithActivityOptions(ctx, nodeOptions(in.node))
	defer func() {
		if !errors.Is(ctx.Err(), workflow.ErrCanceled) {
			return
		}
		dctx, _ := workflow.NewDisconnectedContext(node)
		_ = pr.publish(dctx, cdi.ImportProgress{Step: cdi.StepCleanup})
		_ = cdi.CleanupDisk.Execute(dctx, in.cleanup, true)
	}()
	// Not wrapped: the failure's type and message are the DataVolume's
	// condition as they are.
	res, err = in.activity.Execute(node, in.input)
	if err != nil {
		return res, err
	}
	if err := cdi.CleanupDisk.Execute(node, in.cleanup, false); err != nil {
		return res, fmt.Errorf("cleaning up after %s: %w", in.dataVolume, err)
	}
	return res, pr.publish(ctx, cdi.ImportProgress{Step: cdi.StepCompleted, Format: res.Format, VirtualSize: res.VirtualSize, ResumedFrom: res.ResumedFrom})
}

// nodeOptions run the data path on the node. The heartbeat timeout is what
// notices a killed worker; retries never stop on their own, as CDI keeps
// restarting an importer, because the DataVolume's deletion is the user's
// way to give up.
func nodeOptions(node string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:           cdi.NodeTaskQueue(node),
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    15 * time.Second,
		// Cleanup must not race a copy that has not noticed the
		// cancellation yet: wait until the activity has stopped.
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			NonRetryableErrorTypes: []string{
				cdi.ErrTypeSourceUnreachable, cdi.ErrTypeUnsupportedImage,
				cdi.ErrTypeTargetTooSmall, cdi.ErrTypeInvalidSource,
			},
		},
	}
}
