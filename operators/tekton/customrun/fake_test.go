package customrun

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// fakeTemporal holds one workflow per ID: its status, memo, result or
// failure; it records starts and cancellations.
type fakeTemporal struct {
	client.Client
	t         *testing.T
	status    map[string]enumspb.WorkflowExecutionStatus
	progress  map[string]ssp.Progress
	result    map[string]any
	failure   map[string]error
	started   []started
	cancelled []string
}

type started struct {
	opts  client.StartWorkflowOptions
	typ   string
	input any
}

func newFakeTemporal(t *testing.T) *fakeTemporal {
	return &fakeTemporal{t: t, status: map[string]enumspb.WorkflowExecutionStatus{}, progress: map[string]ssp.Progress{},
		result: map[string]any{}, failure: map[string]error{}}
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	s, ok := f.status[id]
	if !ok {
		return nil, serviceerror.NewNotFound(id)
	}
	info := &workflowpb.WorkflowExecutionInfo{Status: s}
	if p, ok := f.progress[id]; ok {
		payload, err := converter.GetDefaultDataConverter().ToPayload(p)
		require.NoError(f.t, err)
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{ssp.ProgressMemoKey: payload}}
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}, nil
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, typ interface{}, args ...interface{}) (client.WorkflowRun, error) {
	f.status[o.ID] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	f.started = append(f.started, started{opts: o, typ: typ.(string), input: args[0]})
	return nil, nil
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.cancelled = append(f.cancelled, id)
	return nil
}

func (f *fakeTemporal) GetWorkflow(_ context.Context, id, _ string) client.WorkflowRun {
	return &fakeRun{f: f, id: id}
}

// fakeRun yields a closed workflow's result or failure.
type fakeRun struct {
	client.WorkflowRun
	f  *fakeTemporal
	id string
}

func (r *fakeRun) Get(_ context.Context, out interface{}) error {
	if err := r.f.failure[r.id]; err != nil {
		return err
	}
	payload, err := converter.GetDefaultDataConverter().ToPayload(r.f.result[r.id])
	require.NoError(r.f.t, err)
	return converter.GetDefaultDataConverter().FromPayload(payload, out)
}

// finish closes a workflow.
func (f *fakeTemporal) finish(id string, s enumspb.WorkflowExecutionStatus, result any, failure error) {
	f.status[id], f.result[id], f.failure[id] = s, result, failure
}
