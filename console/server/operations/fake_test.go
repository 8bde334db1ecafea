package operations

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/virtflow/virtflow/console/server/kubeapi"
)

// fakeTemporal holds executions in memory, newest first.
type fakeTemporal struct {
	mu        sync.Mutex
	execs     []*workflowpb.WorkflowExecutionInfo
	inputs    map[string]*commonpb.Payload
	queries   []string
	cancelled []string
	histories int
}

func (f *fakeTemporal) add(t *testing.T, id, typ string, status enumspb.WorkflowExecutionStatus, input, progress any) {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	in, err := dc.ToPayload(input)
	require.NoError(t, err)
	info := &workflowpb.WorkflowExecutionInfo{
		Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "run-" + id},
		Type:      &commonpb.WorkflowType{Name: typ}, Status: status,
		StartTime: timestamppb.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
	}
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		info.CloseTime = timestamppb.New(time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC))
	}
	if progress != nil {
		p, err := dc.ToPayload(progress)
		require.NoError(t, err)
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{progressMemoKey: p}}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inputs == nil {
		f.inputs = map[string]*commonpb.Payload{}
	}
	f.execs = append([]*workflowpb.WorkflowExecutionInfo{info}, f.execs...)
	f.inputs[info.Execution.RunId] = in
}

func (f *fakeTemporal) ListWorkflow(_ context.Context, r *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, r.Query)
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: append([]*workflowpb.WorkflowExecutionInfo(nil), f.execs...)}, nil
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.execs {
		if e.Execution.WorkflowId == id {
			return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: e}, nil
		}
	}
	return nil, serviceerror.NewNotFound("workflow not found")
}

func (f *fakeTemporal) GetWorkflowHistory(_ context.Context, _, runID string, _ bool, _ enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.histories++
	ev := &historypb.HistoryEvent{Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
		WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
			Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{f.inputs[runID]}},
		},
	}}
	return &iterator{events: []*historypb.HistoryEvent{ev}}
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, id)
	return nil
}

func (f *fakeTemporal) setStatus(id string, s enumspb.WorkflowExecutionStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.execs {
		if e.Execution.WorkflowId == id {
			e.Status = s
		}
	}
}

type iterator struct{ events []*historypb.HistoryEvent }

func (i *iterator) HasNext() bool { return len(i.events) > 0 }

func (i *iterator) Next() (*historypb.HistoryEvent, error) {
	ev := i.events[0]
	i.events = i.events[1:]
	return ev, nil
}

// rules is an Authorizer deciding by a function of the check, with every
// check it was asked recorded.
type rules struct {
	mu    sync.Mutex
	allow func(kubeapi.Check) bool
	asked []kubeapi.Check
	err   error
}

func (r *rules) Allowed(_ context.Context, _ string, checks []kubeapi.Check) ([]bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	r.asked = append(r.asked, checks...)
	out := make([]bool, len(checks))
	for i, c := range checks {
		out[i] = r.allow(c)
	}
	return out, nil
}
