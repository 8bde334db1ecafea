// Package cdi orchestrates CDI's data operations: each DataVolume import
// is a workflow whose data path runs on the node that holds the volume.
package cdi

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/activities/storage"
)

// ImportWorkflowName is the workflow type of a DataVolume import.
const ImportWorkflowName = "cdi.ImportDataVolume"

// ProgressMemoKey is the memo field the reconciler reads the step from.
const ProgressMemoKey = "progress"

// Import steps, in order.
const (
	StepImporting = "Importing"
	StepCleanup   = "CleaningUp"
	StepCompleted = "Completed"
)

// NodeTaskQueue is the task queue of a node's worker, where node-local
// disk activities run.
func NodeTaskQueue(node string) string { return "virtflow-node-" + node }

// ImportInput is one DataVolume to fill on one node.
type ImportInput struct {
	// DataVolume is namespace/name, for the Web UI and logs.
	DataVolume string `json:"dataVolume"`
	// Node holds the volume; the data path runs on its task queue.
	Node    string                `json:"node"`
	Request storage.ImportRequest `json:"request"`
}

// ImportProgress is published as memo. The copy's percentage is in the
// import activity's heartbeat, which the reconciler reads directly.
type ImportProgress struct {
	Step        string `json:"step"`
	Format      string `json:"format,omitempty"`
	VirtualSize int64  `json:"virtualSize,omitempty"`
	ResumedFrom int64  `json:"resumedFrom,omitempty"`
}

// ImportDataVolume writes the source into the volume on its node. A
// crashed worker's attempt is retried and resumes from its last heartbeat
// checkpoint; a source that is down is retried until the DataVolume is
// deleted (the reconciler shows the last failure); what can never succeed
// fails the workflow. Cancelling it removes the partial disk and scratch
// files.
func ImportDataVolume(ctx workflow.Context, in ImportInput) (storage.ImportResult, error) {
	return fillVolume(ctx, fill{dataVolume: in.DataVolume, node: in.Node, activity: storage.ImportDiskName, input: in.Request, cleanup: in.Request})
}

// fill is one data-path activity into a volume on its node.
type fill struct {
	dataVolume, node, activity string
	input                      any
	// cleanup names the volume and scratch space to clear.
	cleanup storage.ImportRequest
}

// fillVolume runs the data-path activity, with cleanup of partial data
// when cancelled.
func fillVolume(ctx workflow.Context, in fill) (res storage.ImportResult, err error) {
	if err := publish(ctx, ImportProgress{Step: StepImporting}); err != nil {
		return res, err
	}
	node := workflow.WithActivityOptions(ctx, nodeOptions(in.node))
	defer func() {
		if !errors.Is(ctx.Err(), workflow.ErrCanceled) {
			return
		}
		dctx, _ := workflow.NewDisconnectedContext(node)
		_ = publish(dctx, ImportProgress{Step: StepCleanup})
		_ = workflow.ExecuteActivity(dctx, storage.CleanupDiskName, in.cleanup, true).Get(dctx, nil)
	}()
	// Not wrapped: the failure's type and message are the DataVolume's
	// condition as they are.
	if err := workflow.ExecuteActivity(node, in.activity, in.input).Get(node, &res); err != nil {
		return res, err
	}
	if err := workflow.ExecuteActivity(node, storage.CleanupDiskName, in.cleanup, false).Get(node, nil); err != nil {
		return res, fmt.Errorf("cleaning up after %s: %w", in.dataVolume, err)
	}
	return res, publish(ctx, ImportProgress{Step: StepCompleted, Format: res.Format, VirtualSize: res.VirtualSize, ResumedFrom: res.ResumedFrom})
}

// nodeOptions run the data path on the node. The heartbeat timeout is what
// notices a killed worker; retries never stop on their own, as CDI keeps
// restarting an importer, because the DataVolume's deletion is the user's
// way to give up.
func nodeOptions(node string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		TaskQueue:           NodeTaskQueue(node),
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    15 * time.Second,
		// Cleanup must not race a copy that has not noticed the
		// cancellation yet: wait until the activity has stopped.
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			NonRetryableErrorTypes: []string{
				storage.ErrTypeSourceUnreachable, storage.ErrTypeUnsupportedImage,
				storage.ErrTypeTargetTooSmall, storage.ErrTypeInvalidSource,
			},
		},
	}
}

func publish(ctx workflow.Context, p ImportProgress) error {
	if err := workflow.UpsertMemo(ctx, map[string]interface{}{ProgressMemoKey: p}); err != nil {
		return fmt.Errorf("publishing progress: %w", err)
	}
	return nil
}
