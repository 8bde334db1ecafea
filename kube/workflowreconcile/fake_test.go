package workflowreconcile

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	temporalclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// fakeTemporal holds one execution per ID, by status and memo, and records
// what the lifecycle asks of it.
type fakeTemporal struct {
	t         *testing.T
	status    map[string]enumspb.WorkflowExecutionStatus
	memo      map[string]any
	history   map[string]int64
	startErr  error
	described []string
	started   []startCall
	cancelled []string
	// polls receives the IDs whose history a watcher follows.
	polls chan string
}

type startCall struct {
	opts  temporalclient.StartWorkflowOptions
	typ   any
	input any
}

func newFakeTemporal(t *testing.T) *fakeTemporal {
	return &fakeTemporal{t: t, status: map[string]enumspb.WorkflowExecutionStatus{}, memo: map[string]any{},
		history: map[string]int64{}, polls: make(chan string, 8)}
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	f.described = append(f.described, id)
	s, ok := f.status[id]
	if !ok {
		return nil, serviceerror.NewNotFound("workflow " + id + " not found")
	}
	info := &workflowpb.WorkflowExecutionInfo{Status: s, HistoryLength: f.history[id]}
	if m, ok := f.memo[id]; ok {
		p, err := converter.GetDefaultDataConverter().ToPayload(m)
		require.NoError(f.t, err)
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{memoKey: p}}
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}, nil
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o temporalclient.StartWorkflowOptions, typ interface{}, args ...interface{}) (temporalclient.WorkflowRun, error) {
	if f.startErr != nil {
		return nil, f.startErr
	}
	require.Len(f.t, args, 1, "a workflow takes one input")
	f.started = append(f.started, startCall{opts: o, typ: typ, input: args[0]})
	f.status[o.ID] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	return nil, nil
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.cancelled = append(f.cancelled, id)
	return nil
}

func (f *fakeTemporal) GetWorkflow(context.Context, string, string) temporalclient.WorkflowRun {
	return failedRun{}
}

// GetWorkflowHistory reports the poll and ends the history at once, as
// for an execution that has just closed.
func (f *fakeTemporal) GetWorkflowHistory(_ context.Context, id, _ string, _ bool, _ enumspb.HistoryEventFilterType) temporalclient.HistoryEventIterator {
	f.polls <- id
	return emptyHistory{}
}

type emptyHistory struct{}

func (emptyHistory) HasNext() bool { return false }

func (emptyHistory) Next() (*historypb.HistoryEvent, error) { return nil, errors.New("no more events") }

// failedRun is a closed run whose Get yields its failure.
type failedRun struct{ temporalclient.WorkflowRun }

func (failedRun) Get(context.Context, interface{}) error { return errors.New("the source is gone") }
