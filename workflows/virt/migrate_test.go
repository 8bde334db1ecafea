package virt

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/typed"
	"github.com/virtflow/virtflow/contracts/virt"
)

var (
	testInput = virt.MigrateInput{Migration: virt.Ref{Namespace: "ns", Name: "mig", UID: "m-1"}, VMI: virt.Ref{Namespace: "ns", Name: "vm", UID: "v-1"}}
	testPlan  = virt.MigrationPlan{Source: virt.Side{Node: "node-1", Pod: "virt-launcher-vm-aaaaa"}, CompletionTimeout: time.Minute, ProgressTimeout: time.Minute}
	testEnd   = virt.TargetEndpoint{Address: "10.250.0.12", Ports: map[string]int{"40001": 0, "40002": 49152}}
)

// unmocked fails a step the test did not script.
func unmocked[In, Out any](ctx context.Context, _ In) (Out, error) {
	var zero Out
	return zero, errors.New("unscripted step")
}

func unmockedVoid[In any](context.Context, In) error { return errors.New("unscripted step") }

func newEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	RegisterWorkflows(env)
	typed.RegisterActivities(env,
		virt.PlanMigration.Bind(unmocked[virt.MigrateInput, virt.MigrationPlan]),
		virt.CreateTargetPod.Bind(unmocked[virt.NodeRequest, string]),
		virt.AwaitTargetPod.Bind(unmocked[virt.NodeRequest, string]),
		virt.PrepareTarget.Bind(unmocked[virt.NodeRequest, virt.TargetEndpoint]),
		virt.MigrateDomain.Bind(unmockedVoid[virt.NodeRequest]),
		virt.ReadCopy.Bind(unmocked[virt.NodeRequest, virt.Copy]),
		virt.AbortMigration.Bind(unmockedVoid[virt.NodeRequest]),
		virt.HandOver.Bind(unmockedVoid[virt.NodeRequest]),
		virt.RemoveTarget.Bind(unmockedVoid[virt.NodeRequest]),
		virt.ResumeSource.Bind(unmockedVoid[virt.NodeRequest]),
		virt.RecordMigrationEnd.Bind(func(context.Context, virt.NodeRequest, virt.MigrateResult) error {
			return errors.New("unscripted step")
		}),
	)
	return env
}

// scriptUntilCopy scripts the steps up to the copy.
func scriptUntilCopy(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(virt.PlanMigrationName, mock.Anything, testInput).Return(testPlan, nil).Once()
	env.OnActivity(virt.CreateTargetPodName, mock.Anything, mock.Anything).Return("virt-launcher-vm-bbbbb", nil).Once()
	env.OnActivity(virt.AwaitTargetPodName, mock.Anything, mock.Anything).Return("node-2", nil).Once()
	env.OnActivity(virt.PrepareTargetName, mock.Anything, mock.Anything).Return(testEnd, nil).Once()
}

// readCopies answers each node's ReadCopy with its side of copies; track,
// when set, hears each read.
func readCopies(env *testsuite.TestWorkflowEnvironment, copies virt.Copies, track func(mock.Arguments)) {
	env.OnActivity(virt.ReadCopyName, mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		if track != nil {
			track(args)
		}
	}).Return(func(ctx context.Context, _ virt.NodeRequest) (virt.Copy, error) {
		if activity.GetInfo(ctx).TaskQueue == cdi.NodeTaskQueue(testPlan.Source.Node) {
			return copies.Source, nil
		}
		return copies.Target, nil
	}).Times(2)
}

func result(t *testing.T, env *testsuite.TestWorkflowEnvironment) virt.MigrateResult {
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res virt.MigrateResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return res
}

func TestAMigrationHandsTheVMIToTheTargetOnceItRunsThere(t *testing.T) {
	env := newEnv()
	scriptUntilCopy(env)
	var copyReq virt.NodeRequest
	env.OnActivity(virt.MigrateDomainName, mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		copyReq = args.Get(1).(virt.NodeRequest)
	}).Return(nil).Once()
	readCopies(env, virt.Copies{Source: virt.CopyGone, Target: virt.CopyRunning}, nil)
	env.OnActivity(virt.HandOverName, mock.Anything, mock.Anything).Return(nil).Once()

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	require.Equal(t, virt.MigrateResult{Phase: virt.PhaseSucceeded, TargetNode: "node-2"}, result(t, env))
	require.Equal(t, "node-2", copyReq.Target.Node)
	require.Equal(t, "virt-launcher-vm-bbbbb", copyReq.Target.Pod)
	require.Equal(t, testEnd, copyReq.Endpoint, "the source is told where the target listens")
	env.AssertExpectations(t)
}

func TestAMigrationThatCannotStartLeavesTheVMIAlone(t *testing.T) {
	env := newEnv()
	env.OnActivity(virt.PlanMigrationName, mock.Anything, testInput).Return(virt.MigrationPlan{},
		temporal.NewNonRetryableApplicationError("Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: ...", virt.ErrTypeMigrationRefused, nil)).Once()
	env.OnActivity(virt.RecordMigrationEndName, mock.Anything, mock.Anything, mock.Anything).Return(nil).Once()

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	res := result(t, env)
	require.Equal(t, virt.PhaseFailed, res.Phase)
	require.Equal(t, "Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: ...", res.Reason)
	env.AssertExpectations(t)
}

// settles scripts a copy that failed and what both nodes then report,
// and returns the steps the workflow took after.
func settles(t *testing.T, copies virt.Copies) (virt.MigrateResult, []string) {
	env := newEnv()
	scriptUntilCopy(env)
	var after []string
	track := func(name string) func(mock.Arguments) { return func(mock.Arguments) { after = append(after, name) } }
	env.OnActivity(virt.MigrateDomainName, mock.Anything, mock.Anything).Return(
		temporal.NewNonRetryableApplicationError("Live migration failed", virt.ErrTypeMigrationFailed, nil)).Once()
	env.OnActivity(virt.AbortMigrationName, mock.Anything, mock.Anything).Run(track("abort")).Return(nil).Maybe()
	readCopies(env, copies, track("read"))
	for name, step := range map[string]string{virt.HandOverName: "hand-over", virt.RemoveTargetName: "remove-target", virt.ResumeSourceName: "resume-source"} {
		env.OnActivity(name, mock.Anything, mock.Anything).Run(track(step)).Return(nil).Maybe()
	}
	env.OnActivity(virt.RecordMigrationEndName, mock.Anything, mock.Anything, mock.Anything).Run(track("record")).Return(nil).Maybe()
	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)
	return result(t, env), after
}

func TestAFailedCopyKeepsTheCopyThatRuns(t *testing.T) {
	res, steps := settles(t, virt.Copies{Source: virt.CopyRunning, Target: virt.CopyIncoming})
	require.Equal(t, virt.PhaseFailed, res.Phase)
	require.Equal(t, "Live migration failed", res.Reason)
	require.Equal(t, []string{"abort", "read", "read", "remove-target", "record"}, steps, "the source keeps the guest; the target goes")

	res, steps = settles(t, virt.Copies{Source: virt.CopyGone, Target: virt.CopyRunning})
	require.Equal(t, virt.MigrateResult{Phase: virt.PhaseSucceeded, TargetNode: "node-2"}, res, "a guest that reached the target stays there")
	require.Equal(t, []string{"abort", "read", "read", "hand-over"}, steps)

	res, steps = settles(t, virt.Copies{Source: virt.CopyPaused, Target: virt.CopyIncoming})
	require.Equal(t, virt.PhaseFailed, res.Phase)
	require.Equal(t, []string{"abort", "read", "read", "resume-source", "remove-target", "record"}, steps, "a source the copy paused runs again")

	res, steps = settles(t, virt.Copies{Source: virt.CopyGone, Target: virt.CopyGone})
	require.Contains(t, res.Reason, "no copy of the guest runs on either node")
	require.Equal(t, []string{"abort", "read", "read", "record"}, steps, "the last trace of the guest is not removed")
}

func TestACancelledMigrationAbortsTheCopyAndKeepsTheSource(t *testing.T) {
	env := newEnv()
	scriptUntilCopy(env)
	var steps []string
	env.OnActivity(virt.MigrateDomainName, mock.Anything, mock.Anything).Return(func(ctx context.Context, _ virt.NodeRequest) error {
		// A long copy, cancelled through the VMIM's deletion meanwhile.
		go env.CancelWorkflow()
		<-ctx.Done()
		return ctx.Err()
	}).Once()
	env.OnActivity(virt.AbortMigrationName, mock.Anything, mock.Anything).Run(func(mock.Arguments) { steps = append(steps, "abort") }).Return(nil).Once()
	readCopies(env, virt.Copies{Source: virt.CopyRunning, Target: virt.CopyIncoming}, nil)
	env.OnActivity(virt.RemoveTargetName, mock.Anything, mock.Anything).Run(func(mock.Arguments) { steps = append(steps, "remove-target") }).Return(nil).Once()
	env.OnActivity(virt.RecordMigrationEndName, mock.Anything, mock.Anything, mock.Anything).Return(nil).Once()

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	require.True(t, env.IsWorkflowCompleted())
	var canceled *temporal.CanceledError
	require.ErrorAs(t, env.GetWorkflowError(), &canceled, "the run ends cancelled, once the copies are settled")
	require.Equal(t, []string{"abort", "remove-target"}, steps)
	env.AssertExpectations(t)
}

func TestATargetThatNeverScheduledLeavesOnlyTheSource(t *testing.T) {
	env := newEnv()
	env.OnActivity(virt.PlanMigrationName, mock.Anything, testInput).Return(testPlan, nil).Once()
	env.OnActivity(virt.CreateTargetPodName, mock.Anything, mock.Anything).Return("virt-launcher-vm-bbbbb", nil).Once()
	env.OnActivity(virt.AwaitTargetPodName, mock.Anything, mock.Anything).Return("",
		temporal.NewNonRetryableApplicationError("unschedulable pod ns/virt-launcher-vm-bbbbb timeout period exceeded", virt.ErrTypeTargetNotScheduled, nil)).Once()
	env.OnActivity(virt.ReadCopyName, mock.Anything, mock.Anything).Return(virt.CopyRunning, nil).Once()
	env.OnActivity(virt.RemoveTargetName, mock.Anything, mock.Anything).Return(nil).Once()
	env.OnActivity(virt.RecordMigrationEndName, mock.Anything, mock.Anything, mock.Anything).Return(nil).Once()

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	res := result(t, env)
	require.Equal(t, virt.PhaseFailed, res.Phase)
	require.Equal(t, "unschedulable pod ns/virt-launcher-vm-bbbbb timeout period exceeded", res.Reason)
	env.AssertExpectations(t)
}

// cancelDuring makes a step a long one cancelled through the VMIM's
// deletion meanwhile. (The test environment does not wait for a step a
// cancellation interrupts, as the server does; only what runs after is
// checked here.)
func cancelDuring(env *testsuite.TestWorkflowEnvironment) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		go env.CancelWorkflow()
		<-ctx.Done()
		return ctx.Err()
	}
}

func TestACancelDuringTheTargetsCreationRemovesWhatItMade(t *testing.T) {
	env := newEnv()
	env.OnActivity(virt.PlanMigrationName, mock.Anything, testInput).Return(testPlan, nil).Once()
	cancel := cancelDuring(env)
	env.OnActivity(virt.CreateTargetPodName, mock.Anything, mock.Anything).Return(func(ctx context.Context, _ virt.NodeRequest) (string, error) {
		return "", cancel(ctx)
	}).Once()
	env.OnActivity(virt.ReadCopyName, mock.Anything, mock.Anything).Return(virt.CopyRunning, nil).Once()
	var removal virt.NodeRequest
	env.OnActivity(virt.RemoveTargetName, mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		removal = args.Get(1).(virt.NodeRequest)
	}).Return(nil).Once()
	env.OnActivity(virt.RecordMigrationEndName, mock.Anything, mock.Anything, mock.Anything).Return(nil).Once()

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	var canceled *temporal.CanceledError
	require.ErrorAs(t, env.GetWorkflowError(), &canceled)
	require.Empty(t, removal.Target.Pod, "the step finds the pod by its migration")
	env.AssertExpectations(t)
}

func TestACancelWhileThePlanIsMadeStillRecordsTheEnd(t *testing.T) {
	env := newEnv()
	cancel := cancelDuring(env)
	env.OnActivity(virt.PlanMigrationName, mock.Anything, testInput).Return(func(ctx context.Context, _ virt.MigrateInput) (virt.MigrationPlan, error) {
		return virt.MigrationPlan{}, cancel(ctx)
	}).Once()
	var recorded virt.MigrateResult
	env.OnActivity(virt.RecordMigrationEndName, mock.Anything, mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		recorded = args.Get(2).(virt.MigrateResult)
	}).Return(nil).Once()

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	var canceled *temporal.CanceledError
	require.ErrorAs(t, env.GetWorkflowError(), &canceled)
	require.Equal(t, virt.PhaseFailed, recorded.Phase, "the plan may have written the start on the VMI")
	env.AssertExpectations(t)
}
