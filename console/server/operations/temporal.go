// Package operations is the console's view of virtflow's long operations:
// the Temporal workflows, each shown to whoever may read the Kubernetes
// object it works for and cancellable by whoever may delete that object.
package operations

import (
	"context"
	"fmt"
	"sync"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// Temporal is the part of the Temporal client the console uses;
// client.Client has it.
type Temporal interface {
	// ListWorkflow reads the visibility store.
	ListWorkflow(ctx context.Context, request *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error)
	// DescribeWorkflowExecution reads one execution.
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
	// GetWorkflowHistory iterates over an execution's events.
	GetWorkflowHistory(ctx context.Context, workflowID, runID string, isLongPoll bool, filterType enumspb.HistoryEventFilterType) client.HistoryEventIterator
	// CancelWorkflow requests cancellation.
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
}

// statusNames are Temporal's own words for an execution's status, as its
// Web UI shows them.
var statusNames = map[enumspb.WorkflowExecutionStatus]string{
	enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:          "Running",
	enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:        "Completed",
	enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:           "Failed",
	enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:         "Canceled",
	enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:       "Terminated",
	enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW: "ContinuedAsNew",
	enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:        "TimedOut",
}

func statusName(s enumspb.WorkflowExecutionStatus) string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return "Unknown"
}

// inputs remembers each run's first input: it never changes, and reading
// it costs a history request.
type inputs struct {
	mu sync.Mutex
	m  map[string]*commonpb.Payload
}

// inputsCap bounds the memory; past it the map starts over.
const inputsCap = 10000

// input returns the run's first input payload, nil if it had none.
func (c *inputs) input(ctx context.Context, t Temporal, id, runID string) (*commonpb.Payload, error) {
	c.mu.Lock()
	p, ok := c.m[runID]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	it := t.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return nil, fmt.Errorf("workflow %s has no history", id)
	}
	ev, err := it.Next()
	if err != nil {
		return nil, fmt.Errorf("reading the start of workflow %s: %w", id, err)
	}
	if ps := ev.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads(); len(ps) > 0 {
		p = ps[0]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= inputsCap {
		c.m = map[string]*commonpb.Payload{}
	}
	c.m[runID] = p
	return p, nil
}
