//go:build integration

package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
	hcoc "github.com/virtflow/virtflow/contracts/hco"
	sspc "github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/typed"
	cdiwf "github.com/virtflow/virtflow/workflows/cdi"
	hcowf "github.com/virtflow/virtflow/workflows/hco"
	sspwf "github.com/virtflow/virtflow/workflows/ssp"
	virtwf "github.com/virtflow/virtflow/workflows/virt"
)

// pathRun is one run of a real workflow on the real Temporal server whose
// activities are scripted, so that its failed and cancelled paths happen
// on demand: a failure the activity returns, or a cancellation once the
// activity named by cancelAt is running (it heartbeats until cancelled).
type pathRun struct {
	file     string // testdata history, relative to the repository root
	workflow string
	input    func(node string) any
	// activities are the scripted implementations, bound through the
	// contracts' descriptors so that a script of the wrong signature does
	// not compile.
	activities []typed.ActivityBinding
	cancelAt   string
	// cancelAtCount is how many cancelAt activities are scheduled before
	// the cancellation (1 when zero): the durable pipeline runs all its
	// steps as one activity type.
	cancelAtCount int
	want          enumspb.WorkflowExecutionStatus
	// ran are the activity types that must have been scheduled.
	ran []string
	// steps, when set, is how many activities of the durable tasks' one
	// type must have been scheduled (the pipeline's clean-up is its last).
	steps int
}

var (
	testHC    = hcoc.HyperConvergedRef{Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "paths"}
	testComps = []hcoc.ComponentRef{{Kind: hcoc.KindCDI, APIVersion: "cdi.kubevirt.io/v1beta1", Name: "cdi-kubevirt-hyperconverged"}}
	testCron  = cdic.CronRef{Namespace: "golden", Name: "fedora-cron", UID: "paths"}
)

func nonRetryable(msg, typ string) error {
	return temporal.NewNonRetryableApplicationError(msg, typ, nil)
}

// untilCancelled heartbeats until the workflow cancels the activity.
func untilCancelled(ctx context.Context) error {
	for {
		activity.RecordHeartbeat(ctx)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func importInput(node string) any {
	return cdic.ImportInput{DataVolume: "default/dv", Node: node,
		Request: cdic.ImportRequest{Namespace: "default", Claim: "dv", VolumeDir: "/pool/dv", Source: cdic.SourceRef{URL: "http://images/disk.img"}, Size: 1 << 30, Key: "paths"}}
}

func pathRuns() []pathRun {
	installIn := func(string) any { return hcoc.InstallInput{HyperConverged: testHC} }
	uninstallIn := func(string) any { return hcoc.UninstallInput{HyperConverged: testHC, Components: testComps} }
	cloneIn := func(node string) any {
		return cdic.CloneInput{DataVolume: "default/copy", Node: node,
			Request: cdic.CloneRequest{SourceDir: "/pool/src", VolumeDir: "/pool/copy", Size: 1 << 30, Key: "paths", Namespace: "default", Claim: "copy"}}
	}
	cronIn := func(string) any { return testCron }
	plan := func(context.Context, hcoc.HyperConvergedRef) ([]hcoc.ComponentRef, error) { return testComps, nil }
	ensure := func(context.Context, hcoc.EnsureComponentInput) error { return nil }
	deleted := func(context.Context, []hcoc.ComponentRef) error { return nil }
	cleanup := func(context.Context, cdic.ImportRequest, bool) error { return nil }
	record := func(context.Context, cdic.PollRecord) error { return nil }
	fill := func(ctx context.Context, _ cdic.ImportRequest) (cdic.ImportResult, error) {
		return cdic.ImportResult{}, untilCancelled(ctx)
	}
	tooSmall := func(context.Context, cdic.ImportRequest) (cdic.ImportResult, error) {
		return cdic.ImportResult{}, nonRetryable("Virtual image size is larger than the reported available storage", cdic.ErrTypeTargetTooSmall)
	}
	return append(append(sspPathRuns(), virtPathRuns()...), []pathRun{
		{file: "workflows/hco/testdata/install_failed.json", workflow: hcoc.InstallWorkflowName, input: installIn,
			activities: []typed.ActivityBinding{hcoc.PlanComponents.Bind(func(context.Context, hcoc.HyperConvergedRef) ([]hcoc.ComponentRef, error) {
				return nil, nonRetryable("HyperConverged kubevirt-hyperconverged/kubevirt-hyperconverged (uid paths) no longer exists", hcoc.ErrHyperConvergedGone)
			})},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, ran: []string{hcoc.PlanComponentsName}},
		{file: "workflows/hco/testdata/install_cancelled.json", workflow: hcoc.InstallWorkflowName, input: installIn,
			activities: []typed.ActivityBinding{hcoc.PlanComponents.Bind(plan), hcoc.EnsureComponent.Bind(ensure), hcoc.DeleteComponents.Bind(deleted),
				hcoc.WaitComponentAvailable.Bind(func(ctx context.Context, _ hcoc.ComponentRef) (hcoc.ComponentStatus, error) {
					return hcoc.ComponentStatus{}, untilCancelled(ctx)
				})},
			cancelAt: hcoc.WaitComponentAvailableName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, ran: []string{hcoc.DeleteComponentsName}},
		{file: "workflows/hco/testdata/uninstall_failed.json", workflow: hcoc.UninstallWorkflowName, input: uninstallIn,
			activities: []typed.ActivityBinding{hcoc.DeleteComponents.Bind(func(context.Context, []hcoc.ComponentRef) error {
				return nonRetryable(`cdis.cdi.kubevirt.io "cdi-kubevirt-hyperconverged" is forbidden`, "Forbidden")
			})},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, ran: []string{hcoc.DeleteComponentsName}},
		{file: "workflows/hco/testdata/uninstall_cancelled.json", workflow: hcoc.UninstallWorkflowName, input: uninstallIn,
			activities: []typed.ActivityBinding{hcoc.DeleteComponents.Bind(deleted),
				hcoc.WaitComponentsGone.Bind(func(ctx context.Context, _ []hcoc.ComponentRef) error { return untilCancelled(ctx) })},
			cancelAt: hcoc.WaitComponentsGoneName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED},
		{file: "workflows/cdi/testdata/import_failed.json", workflow: cdic.ImportWorkflowName, input: importInput,
			activities: []typed.ActivityBinding{cdic.ImportDisk.Bind(func(context.Context, cdic.ImportRequest) (cdic.ImportResult, error) {
				return cdic.ImportResult{}, nonRetryable("Unable to connect to http data source: expected status code 200, got 404. Status: 404 Not Found", cdic.ErrTypeSourceUnreachable)
			})},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED},
		{file: "workflows/cdi/testdata/import_cancelled.json", workflow: cdic.ImportWorkflowName, input: importInput,
			activities: []typed.ActivityBinding{cdic.ImportDisk.Bind(fill), cdic.CleanupDisk.Bind(cleanup)},
			cancelAt:   cdic.ImportDiskName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, ran: []string{cdic.CleanupDiskName}},
		{file: "workflows/cdi/testdata/upload_failed.json", workflow: cdic.UploadWorkflowName, input: importInput,
			activities: []typed.ActivityBinding{cdic.ReceiveUpload.Bind(tooSmall)}, want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED},
		{file: "workflows/cdi/testdata/upload_cancelled.json", workflow: cdic.UploadWorkflowName, input: importInput,
			activities: []typed.ActivityBinding{cdic.ReceiveUpload.Bind(fill), cdic.CleanupDisk.Bind(cleanup)},
			cancelAt:   cdic.ReceiveUploadName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, ran: []string{cdic.CleanupDiskName}},
		{file: "workflows/cdi/testdata/clone_failed.json", workflow: cdic.CloneWorkflowName, input: cloneIn,
			activities: []typed.ActivityBinding{cdic.CloneDisk.Bind(func(context.Context, cdic.CloneRequest) (cdic.ImportResult, error) {
				return cdic.ImportResult{}, nonRetryable("target size 33554432 is smaller than the source's 100663296", cdic.ErrTypeTargetTooSmall)
			})},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED},
		{file: "workflows/cdi/testdata/clone_cancelled.json", workflow: cdic.CloneWorkflowName, input: cloneIn,
			activities: []typed.ActivityBinding{cdic.CleanupDisk.Bind(cleanup), cdic.CloneDisk.Bind(func(ctx context.Context, _ cdic.CloneRequest) (cdic.ImportResult, error) {
				return cdic.ImportResult{}, untilCancelled(ctx)
			})},
			cancelAt: cdic.CloneDiskName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, ran: []string{cdic.CleanupDiskName}},
		{file: "workflows/cdi/testdata/cron_failed.json", workflow: cdic.PollCronWorkflowName, input: cronIn,
			activities: []typed.ActivityBinding{cdic.RecordPoll.Bind(record), cdic.CheckSource.Bind(func(context.Context, cdic.CronRef) (cdic.SourceState, error) {
				return cdic.SourceState{}, nonRetryable("DataImportCron golden/fedora-cron: the template has no registry or http URL to poll", cdic.ErrTypeUnsupportedSource)
			})},
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, ran: []string{cdic.RecordPollName}},
		{file: "workflows/cdi/testdata/cron_cancelled.json", workflow: cdic.PollCronWorkflowName, input: cronIn,
			activities: []typed.ActivityBinding{cdic.RecordPoll.Bind(record),
				cdic.CheckSource.Bind(func(context.Context, cdic.CronRef) (cdic.SourceState, error) {
					return cdic.SourceState{Digest: "sha256:new", DataVolume: "fedora-0123456789ab"}, nil
				}),
				cdic.EnsureImport.Bind(func(context.Context, cdic.ImportTarget) error { return nil }),
				cdic.WaitImported.Bind(func(ctx context.Context, _ cdic.ImportTarget) error { return untilCancelled(ctx) })},
			cancelAt: cdic.WaitImportedName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED},
	}...)
}

// TestWorkflowsFailAndCancelAsDesignedOnTheRealServer runs every workflow's
// failed and cancelled path on the real Temporal server: a failure ends the
// run Failed with the activity's reason, a cancellation runs the cleanup the
// workflow defers. With VIRTFLOW_RECORD_HISTORIES set it records them for
// the replay tests.
func TestWorkflowsFailAndCancelAsDesignedOnTheRealServer(t *testing.T) {
	for i, run := range pathRuns() {
		t.Run(strings.TrimSuffix(run.file[strings.LastIndex(run.file, "/")+1:], ".json"), func(t *testing.T) {
			runPath(t, i, run)
		})
	}
}

func runPath(t *testing.T, i int, run pathRun) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	queue := fmt.Sprintf("paths-%d-%d", i, time.Now().UnixNano())
	opts := worker.Options{MaxHeartbeatThrottleInterval: 100 * time.Millisecond, DefaultHeartbeatThrottleInterval: 100 * time.Millisecond}
	control, node := worker.New(env.tc, queue, opts), worker.New(env.tc, cdic.NodeTaskQueue(queue), opts)
	hcowf.RegisterWorkflows(control)
	cdiwf.RegisterWorkflows(control)
	sspwf.RegisterWorkflows(control)
	virtwf.RegisterWorkflows(control)
	for _, w := range []worker.Worker{control, node} {
		typed.RegisterActivities(w, run.activities...)
	}
	for _, w := range []worker.Worker{control, node} {
		require.NoError(t, w.Start())
		defer w.Stop()
	}
	id := "paths-" + queue
	wr, err := env.tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, run.workflow, run.input(queue))
	require.NoError(t, err)
	if run.cancelAt != "" {
		waitScheduled(t, ctx, id, run.cancelAt, max(run.cancelAtCount, 1))
		require.NoError(t, env.tc.CancelWorkflow(ctx, id, ""))
	}
	err = wr.Get(ctx, nil)
	desc, derr := env.tc.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, derr)
	require.Equal(t, run.want, desc.WorkflowExecutionInfo.Status, "workflow error: %v", err)
	if run.want == enumspb.WORKFLOW_EXECUTION_STATUS_FAILED {
		var app *temporal.ApplicationError
		require.ErrorAs(t, err, &app, "the activity's own failure reaches the caller")
	}
	for _, a := range run.ran {
		require.Positive(t, activityCount(t, env.tc, id, a), "%s ran", a)
	}
	if run.steps > 0 {
		require.Equal(t, run.steps, activityCount(t, env.tc, id, sspc.RunTaskStepName), "steps scheduled, clean-up last")
	}
	recordHistory(t, env.tc, run.file, id)
}

// waitScheduled waits until n activities of the type have been scheduled,
// and a moment more for a worker to pick the last up.
func waitScheduled(t *testing.T, ctx context.Context, id, activityType string, n int) {
	require.Eventually(t, func() bool { return activityCount(t, env.tc, id, activityType) >= n }, 30*time.Second, 50*time.Millisecond)
	select {
	case <-ctx.Done():
	case <-time.After(300 * time.Millisecond):
	}
}
