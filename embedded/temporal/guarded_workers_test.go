package temporal

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/temporalauth"
)

const progressSignal = "test.progress"

// diskWorkflow runs a disk activity on a node's queue, which reports to it
// by a signal, as the import workflows do.
func diskWorkflow(ctx workflow.Context) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue: testNode, StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	if err := workflow.ExecuteActivity(ctx, "storage.TestDisk").Get(ctx, nil); err != nil {
		return 0, err
	}
	var progress int
	workflow.GetSignalChannel(ctx, progressSignal).Receive(ctx, &progress)
	return progress, nil
}

func pollWorkflow(workflow.Context) error { return nil }

// TestWorkersAndSchedulesWorkUnderTheirIdentities runs a workflow on the
// control worker's identity whose disk activity runs on a node worker's
// and signals back, and a DataImportCron's schedule, which the server's
// system worker starts the polls of.
func TestWorkersAndSchedulesWorkUnderTheirIdentities(t *testing.T) {
	s, logFile := startGuarded(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	control, node, deployment := dialAs(t, s, temporalauth.ControlWorker), dialAs(t, s, temporalauth.NodeWorker), dialAs(t, s, temporalauth.CDIDeployment)
	defer control.Close()
	defer node.Close()
	defer deployment.Close()

	// As worker.NewControl and NewNode name their build.
	opts := worker.Options{DeploymentOptions: worker.DeploymentOptions{Version: worker.WorkerDeploymentVersion{DeploymentName: "virtflow", BuildID: "test"}}}
	cw := worker.New(control, temporalauth.ControlTaskQueue, opts)
	cw.RegisterWorkflowWithOptions(diskWorkflow, workflow.RegisterOptions{Name: "cdi.TestDisk"})
	cw.RegisterWorkflowWithOptions(pollWorkflow, workflow.RegisterOptions{Name: cdi.PollCronWorkflowName})
	nodeOpts := opts
	nodeOpts.DisableWorkflowWorker = true // as worker.NewNode
	nw := worker.New(node, testNode, nodeOpts)
	nw.RegisterActivityWithOptions(func(ctx context.Context) error {
		info := activity.GetInfo(ctx)
		activity.RecordHeartbeat(ctx, "resume point")
		return node.SignalWorkflow(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, progressSignal, 42)
	}, activity.RegisterOptions{Name: "storage.TestDisk"})
	require.NoError(t, cw.Start())
	defer cw.Stop()
	require.NoError(t, nw.Start())
	defer nw.Stop()

	run, err := deployment.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "cdi-import-e2e", TaskQueue: temporalauth.ControlTaskQueue}, "cdi.TestDisk")
	require.NoError(t, err)
	var progress int
	require.NoError(t, run.Get(ctx, &progress))
	require.Equal(t, 42, progress, "the node worker's activity signalled its workflow")

	action := &client.ScheduleWorkflowAction{ID: cdi.CronWorkflowID("e2e"), Workflow: cdi.PollCronWorkflowName, TaskQueue: temporalauth.ControlTaskQueue}
	_, err = deployment.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: cdi.CronScheduleID("e2e"), Action: action, TriggerImmediately: true})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		desc, err := deployment.ScheduleClient().GetHandle(ctx, cdi.CronScheduleID("e2e")).Describe(ctx)
		return err == nil && len(desc.Info.RecentActions) > 0 && desc.Info.RecentActions[0].StartWorkflowResult != nil
	}, 30*time.Second, 200*time.Millisecond, "the system worker started the schedule's poll")
	serverLog, err := os.ReadFile(logFile)
	require.NoError(t, err)
	require.NotContains(t, string(serverLog), "refused a Temporal call", "no call the workers, the deployment or the system worker made was refused")

	hcoAction := &client.ScheduleWorkflowAction{ID: "cdi-cronpoll-x", Workflow: "hco.InstallHyperConverged", TaskQueue: temporalauth.ControlTaskQueue}
	_, err = deployment.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: cdi.CronScheduleID("x"), Action: hcoAction})
	requireDenied(t, err, "a schedule that would start another domain's workflow")
	require.Eventually(t, func() bool {
		serverLog, err := os.ReadFile(logFile)
		return err == nil && strings.Contains(string(serverLog), "refused a Temporal call")
	}, 5*time.Second, 100*time.Millisecond, "the refusal is logged")
}
