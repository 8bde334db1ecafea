//go:build record

package ssp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/virtflow/virtflow/contracts/ssp"
	embeddedtemporal "github.com/virtflow/virtflow/embedded/temporal"
)

// TestRecordHistories records the histories TestReplayRecordedHistories
// replays, on a real Temporal server started in this process, with
// scripted activities, as integration/workflow_paths_test.go records the
// other workflows' failed and cancelled runs:
//
//	go test -tags record -run TestRecordHistories ./workflows/ssp/
//
// A history already in testdata is kept; a run of changed workflow code is
// recorded under a name of its own, so both keep replaying.
func TestRecordHistories(t *testing.T) {
	srv, err := embeddedtemporal.Start(embeddedtemporal.Config{UIPort: -1, Namespaces: []string{"default"}, LogFile: filepath.Join(t.TempDir(), "temporal.log")})
	require.NoError(t, err)
	defer func() { _ = srv.Stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, srv.WaitReady(ctx, "default"))
	tc, err := client.Dial(client.Options{HostPort: srv.FrontendAddress(), Namespace: "default"})
	require.NoError(t, err)
	defer tc.Close()
	for i, r := range recordRuns() {
		t.Run(r.file, func(t *testing.T) { record(t, ctx, tc, i, r) })
	}
}

// recordRun is one run: the workflow, its input, what each task does,
// and the task during which it is cancelled.
type recordRun struct {
	file     string
	workflow string
	input    any
	tasks    map[string]func(ctx context.Context) (ssp.TaskResult, error)
	cancelAt string
	want     enumspb.WorkflowExecutionStatus
	ran      []string
}

func recordRuns() []recordRun {
	ok := func(context.Context) (ssp.TaskResult, error) { return ssp.TaskResult{}, nil }
	vm := func(context.Context) (ssp.TaskResult, error) {
		return ssp.TaskResult{Results: map[string]string{ssp.ResultName: "vm1", ssp.ResultNamespace: "vms"}}, nil
	}
	fail := func(msg string) func(context.Context) (ssp.TaskResult, error) {
		return func(context.Context) (ssp.TaskResult, error) {
			return ssp.TaskResult{}, temporal.NewNonRetryableApplicationError(msg, ssp.ErrTypeTaskFailed, nil)
		}
	}
	task := ssp.TaskRequest{Task: ssp.TaskCreateVMFromTemplate, Namespace: "vms", ServiceAccount: "create-vm-from-template-task",
		Params: ssp.Params{Strings: map[string]string{"templateName": "fedora-server-small"}, Arrays: map[string][]string{"templateParams": {"NAME:vm1"}}}}
	pipeline := ssp.TemplatePipelineInput{Namespace: "vms", ServiceAccount: "pipeline", CreateVM: task.Params,
		WaitForVMI:  ssp.Params{Strings: map[string]string{"successCondition": "status.phase == Running"}},
		ExecuteInVM: ssp.Params{Strings: map[string]string{"secretName": "console"}, Arrays: map[string][]string{"command": {"uname", "-a"}}},
		CleanupVM:   ssp.Params{Strings: map[string]string{"delete": "true"}}}
	return []recordRun{
		{file: "task_completed.json", workflow: ssp.RunTektonTaskWorkflowName, input: task,
			tasks: map[string]func(context.Context) (ssp.TaskResult, error){ssp.TaskCreateVMFromTemplate: vm},
			want:  enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED},
		{file: "task_failed.json", workflow: ssp.RunTektonTaskWorkflowName, input: task,
			tasks: map[string]func(context.Context) (ssp.TaskResult, error){
				ssp.TaskCreateVMFromTemplate: fail(`templates.template.openshift.io "fedora-server-small" not found`)},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED},
		{file: "task_cancelled.json", workflow: ssp.RunTektonTaskWorkflowName, input: task,
			tasks:    map[string]func(context.Context) (ssp.TaskResult, error){ssp.TaskCreateVMFromTemplate: untilCancelled},
			cancelAt: ssp.TaskCreateVMFromTemplate, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED},
		{file: "pipeline_completed.json", workflow: ssp.RunTemplatePipelineWorkflowName, input: pipeline,
			tasks: map[string]func(context.Context) (ssp.TaskResult, error){
				ssp.TaskCreateVMFromTemplate: vm, ssp.TaskWaitForVMIStatus: ok, ssp.TaskExecuteInVM: ok, ssp.TaskCleanupVM: ok},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, ran: []string{ssp.TaskCleanupVM}},
		{file: "pipeline_failed.json", workflow: ssp.RunTemplatePipelineWorkflowName, input: pipeline,
			tasks: map[string]func(context.Context) (ssp.TaskResult, error){
				ssp.TaskCreateVMFromTemplate: vm, ssp.TaskCleanupVM: ok,
				ssp.TaskWaitForVMIStatus: fail("vmi vms/vm1 failed: status.phase in (Failed, Unknown) matched")},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, ran: []string{ssp.TaskCleanupVM}},
		{file: "pipeline_cancelled.json", workflow: ssp.RunTemplatePipelineWorkflowName, input: pipeline,
			tasks: map[string]func(context.Context) (ssp.TaskResult, error){
				ssp.TaskCreateVMFromTemplate: vm, ssp.TaskWaitForVMIStatus: ok, ssp.TaskExecuteInVM: untilCancelled, ssp.TaskCleanupVM: ok},
			cancelAt: ssp.TaskExecuteInVM, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, ran: []string{ssp.TaskCleanupVM}},
	}
}

// untilCancelled heartbeats until the workflow cancels the task.
func untilCancelled(ctx context.Context) (ssp.TaskResult, error) {
	for {
		activity.RecordHeartbeat(ctx)
		select {
		case <-ctx.Done():
			return ssp.TaskResult{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func record(t *testing.T, ctx context.Context, tc client.Client, i int, r recordRun) {
	queue := fmt.Sprintf("ssp-record-%d-%d", i, time.Now().UnixNano())
	w := worker.New(tc, queue, worker.Options{MaxHeartbeatThrottleInterval: 100 * time.Millisecond, DefaultHeartbeatThrottleInterval: 100 * time.Millisecond})
	RegisterWorkflows(w)
	var mu sync.Mutex
	ran := map[string]bool{}
	reached := make(chan struct{}, 1)
	w.RegisterActivityWithOptions(func(ctx context.Context, req ssp.TaskRequest) (ssp.TaskResult, error) {
		mu.Lock()
		ran[req.Task] = true
		mu.Unlock()
		if req.Task == r.cancelAt {
			reached <- struct{}{}
		}
		return r.tasks[req.Task](ctx)
	}, activity.RegisterOptions{Name: ssp.RunTaskStepName})
	require.NoError(t, w.Start())
	defer w.Stop()
	id := "ssp-task-" + queue
	wr, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, r.workflow, r.input)
	require.NoError(t, err)
	if r.cancelAt != "" {
		<-reached
		time.Sleep(300 * time.Millisecond)
		require.NoError(t, tc.CancelWorkflow(ctx, id, ""))
	}
	_ = wr.Get(ctx, nil)
	desc, err := tc.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, r.want, desc.WorkflowExecutionInfo.Status)
	for _, task := range r.ran {
		require.True(t, ran[task], "%s ran", task)
	}
	writeHistory(t, ctx, tc, id, filepath.Join("testdata", r.file))
}

func writeHistory(t *testing.T, ctx context.Context, tc client.Client, id, file string) {
	if _, err := os.Stat(file); err == nil {
		t.Logf("%s exists; not recording over it", file)
		return
	}
	hist := &historypb.History{}
	it := tc.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, ev)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, data, 0o644))
	t.Logf("recorded %d events of %s into %s", len(hist.Events), id, file)
}
