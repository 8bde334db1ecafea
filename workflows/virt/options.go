package virt

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/virt"
)

// Bounds of the steps.
const (
	// awaitTimeout covers upstream's longest pending-pod timeout (15
	// minutes) with room for the activity's own retries.
	awaitTimeout   = 20 * time.Minute
	prepareTimeout = 5 * time.Minute
	// copyTimeout is a ceiling only: the source's monitor applies the
	// plan's completion and progress timeouts.
	copyTimeout  = 24 * time.Hour
	abortTimeout = 2 * time.Minute
)

var nonRetryable = []string{virt.ErrTypeMigrationRefused, virt.ErrTypeTargetNotScheduled, virt.ErrTypeMigrationFailed}

func retry() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
		NonRetryableErrorTypes: nonRetryable}
}

// controlOptions run a control step on the control worker: the
// workflow's own task queue.
func controlOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute, RetryPolicy: retry()}
}

// settledStepsChange versions a cancellation that waits for the control
// step it interrupts (a pod it creates is then known) and records the end
// of a migration cancelled while it was planned.
const settledStepsChange = "migration-cancel-settles-control-steps"

// controlCtx runs a control step that writes to the cluster. A
// cancellation waits for it to end, so what it wrote is there when the
// migration settles, never after.
func (m *migration) controlCtx(ctx workflow.Context) workflow.Context {
	o := controlOptions()
	o.WaitForCancellation = m.settlesSteps
	return workflow.WithActivityOptions(ctx, o)
}

// awaitOptions wait for the target pod, heartbeating what the pod says.
func awaitOptions() workflow.ActivityOptions {
	o := controlOptions()
	o.StartToCloseTimeout, o.HeartbeatTimeout = awaitTimeout, 30*time.Second
	return o
}

// nodeOptions run a node step on that node's worker; the heartbeat
// notices a killed node agent, whose retry resumes the step.
func nodeOptions(node string, timeout time.Duration) workflow.ActivityOptions {
	return workflow.ActivityOptions{TaskQueue: cdi.NodeTaskQueue(node), StartToCloseTimeout: timeout,
		HeartbeatTimeout: 15 * time.Second, WaitForCancellation: true, RetryPolicy: retry()}
}

// readOptions ask a node what it runs, for as long as it takes its agent
// to answer: the end of a migration waits for both nodes' word.
func readOptions(node string) workflow.ActivityOptions {
	o := nodeOptions(node, time.Minute)
	o.ScheduleToCloseTimeout = 0
	o.RetryPolicy.MaximumAttempts = 0
	return o
}
