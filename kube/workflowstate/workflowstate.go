// Package workflowstate is the one place reconcilers turn a Temporal
// workflow execution into something they can map onto their API's own
// status conditions.
package workflowstate

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

// HistoryClient reads a workflow's history; with isLongPoll the iterator
// waits for events still to come.
type HistoryClient interface {
	// GetWorkflowHistory iterates over the execution's history events.
	GetWorkflowHistory(ctx context.Context, workflowID, runID string, isLongPoll bool, filterType enumspb.HistoryEventFilterType) client.HistoryEventIterator
}

// Client is the part of the Temporal client reconcilers use.
type Client interface {
	HistoryClient
	// DescribeWorkflowExecution returns the execution's state and memo.
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
	// ExecuteWorkflow starts a workflow.
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow interface{}, args ...interface{}) (client.WorkflowRun, error)
	// CancelWorkflow requests cancellation.
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
	// GetWorkflow returns a handle whose Get yields a closed run's error.
	GetWorkflow(ctx context.Context, workflowID, runID string) client.WorkflowRun
}

// Phase is the coarse state of a workflow execution.
type Phase string

// Phases of a workflow execution as seen by a reconciler.
const (
	NotFound  Phase = "NotFound"
	Running   Phase = "Running"
	Succeeded Phase = "Succeeded"
	Failed    Phase = "Failed"
	Cancelled Phase = "Cancelled"
)

// State is what a reconciler needs to know about one execution.
type State struct {
	Phase Phase
	// Message explains a failure in the workflow's own words.
	Message string
	// Activities are the execution's pending activities. Reconcilers read
	// an activity's progress from the workflow's memo; only their
	// transitional fallback for runs started before the workflows relayed
	// it (the status_legacy.go files) reads these, and they go with it.
	Activities []PendingActivity
	// HistoryLength is the number of events in its history, where a
	// Watcher starts waiting for new ones.
	HistoryLength int64
	// Closed is when a closed execution ended.
	Closed time.Time
}

// PendingActivity is a running or retrying activity: its retry count and
// why its last attempt failed. Its heartbeat is the activity's own business
// (where a retry resumes); what a reconciler shows of a running activity it
// reads from the memo its workflow publishes.
type PendingActivity struct {
	Type        string
	Attempt     int32
	LastFailure string
}

// Activity returns the pending activity of the given type, if any.
func (s State) Activity(activityType string) (PendingActivity, bool) {
	for _, a := range s.Activities {
		if a.Type == activityType {
			return a, true
		}
	}
	return PendingActivity{}, false
}

// Describe reads the execution with the given ID.
func Describe(ctx context.Context, c Client, id string, memoKey string, progress any) (State, error) {
	resp, err := c.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return State{Phase: NotFound}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("describing workflow %s: %w", id, err)
	}
	info := resp.GetWorkflowExecutionInfo()
	if p := info.GetMemo().GetFields()[memoKey]; p != nil && progress != nil {
		if err := converter.GetDefaultDataConverter().FromPayload(p, progress); err != nil {
			return State{}, fmt.Errorf("decoding progress memo of %s: %w", id, err)
		}
	}
	st := State{Phase: phaseOf(info.GetStatus()), HistoryLength: info.GetHistoryLength()}
	if info.GetCloseTime() != nil {
		st.Closed = info.GetCloseTime().AsTime()
	}
	for _, a := range resp.GetPendingActivities() {
		st.Activities = append(st.Activities, PendingActivity{
			Type: a.GetActivityType().GetName(), Attempt: a.GetAttempt(), LastFailure: a.GetLastFailure().GetMessage(),
		})
	}
	if st.Phase == Failed {
		st.Message = failureMessage(ctx, c, id)
	}
	return st, nil
}

func phaseOf(s enumspb.WorkflowExecutionStatus) Phase {
	switch s {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return Running
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return Succeeded
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return Cancelled
	default:
		return Failed
	}
}

// failureMessage fetches why a closed run failed; the describe response does
// not carry the failure, the close event does. The deepest application
// error's own message is the reason a user needs, without the chain of
// workflow and activity wrappers around it.
func failureMessage(ctx context.Context, c Client, id string) string {
	err := c.GetWorkflow(ctx, id, "").Get(ctx, nil)
	if err == nil {
		return "workflow closed without an error"
	}
	msg, found := err.Error(), false
	for u := err; u != nil; u = errors.Unwrap(u) {
		if app, ok := u.(*temporal.ApplicationError); ok {
			msg, found = app.Message(), true
		} else if !found && errors.Unwrap(u) == nil {
			msg = u.Error()
		}
	}
	return msg
}

// Resync is how often a reconciler looks again at an operation it is
// waiting for although nothing woke it: a safety net for what the Watcher
// cannot see (a retried activity that writes nothing, a watch lost with
// its connection), not the way progress is noticed.
const Resync = time.Minute
