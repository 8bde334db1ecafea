package virt

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/virt"
)

// recordMemos collects every progress memo the workflow upserts, in order.
func recordMemos(env *testsuite.TestWorkflowEnvironment) *[]virt.Progress {
	var memos []virt.Progress
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		memos = append(memos, args.Get(0).(map[string]any)[virt.ProgressMemoKey].(virt.Progress))
	})
	return &memos
}

// report has the source's copy signal r after d on the workflow's clock.
func report(env *testsuite.TestWorkflowEnvironment, d time.Duration, r virt.CopyProgress) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(virt.ProgressSignalName, r) }, d)
}

// scriptSlowCopy scripts a migration whose copy takes ten minutes and
// whose nodes take a minute each to answer afterwards, so reports can
// arrive during the copy and after it.
func scriptSlowCopy(env *testsuite.TestWorkflowEnvironment) {
	scriptUntilCopy(env)
	env.OnActivity(virt.MigrateDomainName, mock.Anything, mock.Anything).After(10 * time.Minute).Return(nil).Once()
	env.OnActivity(virt.ReadCopyName, mock.Anything, mock.Anything).After(time.Minute).Return(
		func(ctx context.Context, _ virt.NodeRequest) (virt.Copy, error) {
			if activity.GetInfo(ctx).TaskQueue == cdi.NodeTaskQueue(testPlan.Source.Node) {
				return virt.CopyGone, nil
			}
			return virt.CopyRunning, nil
		}).Times(2)
	env.OnActivity(virt.HandOverName, mock.Anything, mock.Anything).Return(nil).Once()
}

// counters strips the transitions, which the phases' tests check.
func counters(memos []virt.Progress) []virt.Progress {
	out := make([]virt.Progress, len(memos))
	for i, m := range memos {
		out[i] = virt.Progress{Phase: m.Phase, CopyProgress: m.CopyProgress}
	}
	return out
}

// The copy's reports reach the memo while it runs (a burst folded into
// one upsert, a repeat not upserted again); a report that arrives after
// the copy returned is dropped, and the next phase clears the counters.
func TestTheMemoCarriesTheCopysReportsWhileItRuns(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	scriptSlowCopy(env)
	first := virt.CopyProgress{DataTotal: 2 << 30, DataProcessed: 1 << 30, DataRemaining: 1 << 30, Iteration: 1, MemoryTransferRate: 100 << 20}
	second := virt.CopyProgress{DataTotal: 2 << 30, DataProcessed: 3 << 29, DataRemaining: 1 << 29, DirtyRate: 12 << 20, Iteration: 3}
	report(env, time.Minute, first)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflowSkippingWorkflowTask(virt.ProgressSignalName, virt.CopyProgress{DataTotal: 2 << 30, DataProcessed: 5 << 28, Iteration: 2})
		env.SignalWorkflow(virt.ProgressSignalName, second)
	}, 2*time.Minute)
	report(env, 3*time.Minute, second)
	report(env, 10*time.Minute+30*time.Second, virt.CopyProgress{DataTotal: 2 << 30, DataProcessed: 2 << 30, Iteration: 4})

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	require.Equal(t, virt.MigrateResult{Phase: virt.PhaseSucceeded, TargetNode: "node-2"}, result(t, env))
	phase := func(p string) virt.Progress { return virt.Progress{Phase: p} }
	running := func(c virt.CopyProgress) virt.Progress {
		return virt.Progress{Phase: virt.PhaseRunning, CopyProgress: c}
	}
	// Running is published by the source's first report, as upstream's
	// phase says the source started the copy.
	require.Equal(t, []virt.Progress{
		phase(virt.PhasePending), phase(virt.PhaseScheduling), phase(virt.PhaseScheduled), phase(virt.PhasePreparingTarget),
		phase(virt.PhaseTargetReady),
		running(first), running(second),
		phase(virt.PhaseSucceeded),
	}, counters(*memos))
	last := (*memos)[len(*memos)-1]
	require.Len(t, last.Transitions, 7, "the counters' upserts keep every phase's transition")
	require.Len(t, (*memos)[6].Transitions, 6)
	ready, started := (*memos)[5].Transitions[4].At, (*memos)[5].Transitions[5].At
	require.Equal(t, time.Minute, started.Sub(ready), "Running when the first report came, a minute into the copy")
	env.AssertExpectations(t)
}

// A copy that ends before the source's first report is Running once it
// ended, before the hand-over: the VMIM never skips the phase.
func TestACopyEndedBeforeAnyReportIsRunningBeforeItSucceeds(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	scriptSlowCopy(env)

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []virt.Progress{
		{Phase: virt.PhasePending}, {Phase: virt.PhaseScheduling}, {Phase: virt.PhaseScheduled}, {Phase: virt.PhasePreparingTarget},
		{Phase: virt.PhaseTargetReady}, {Phase: virt.PhaseRunning}, {Phase: virt.PhaseSucceeded},
	}, counters(*memos))
	ready, running := (*memos)[5].Transitions[4].At, (*memos)[5].Transitions[5].At
	require.Equal(t, 10*time.Minute, running.Sub(ready), "Running when the ten-minute copy ended")
}

// A run started before the relay hears no report: it publishes Running
// with TargetReady, as before, even where Running waits for the copy.
func TestARunWithoutTheRelayIsRunningWithTargetReady(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	env.OnGetVersion(progressRelayChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	scriptSlowCopy(env)

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, (*memos)[4].Transitions[4].At, (*memos)[5].Transitions[5].At, "Running with TargetReady")
}

// A run recorded before Running waited for the copy's start published it
// with TargetReady, before the source was asked to copy.
func TestARunBeforeRunningWaitedForTheCopyPublishesItWithTargetReady(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	env.OnGetVersion(runningWhenCopyStartsChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	scriptSlowCopy(env)
	first := virt.CopyProgress{DataTotal: 2 << 30, DataProcessed: 1 << 30, Iteration: 1}
	report(env, time.Minute, first)

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []virt.Progress{
		{Phase: virt.PhasePending}, {Phase: virt.PhaseScheduling}, {Phase: virt.PhaseScheduled}, {Phase: virt.PhasePreparingTarget},
		{Phase: virt.PhaseTargetReady}, {Phase: virt.PhaseRunning}, {Phase: virt.PhaseRunning, CopyProgress: first},
		{Phase: virt.PhaseSucceeded},
	}, counters(*memos))
	require.Equal(t, (*memos)[4].Transitions[4].At, (*memos)[5].Transitions[5].At, "Running with TargetReady")
}

// A run recorded before the relay (DefaultVersion) publishes its phases
// as it did, and leaves the reports unread.
func TestARunWithoutTheRelayPublishesOnlyItsPhases(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	env.OnGetVersion(progressRelayChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	scriptSlowCopy(env)
	report(env, time.Minute, virt.CopyProgress{DataTotal: 2 << 30, DataProcessed: 1 << 30, Iteration: 1})

	env.ExecuteWorkflow(virt.MigrateWorkflowName, testInput)

	require.NoError(t, env.GetWorkflowError())
	for _, m := range *memos {
		require.Zero(t, m.CopyProgress, "phase %s", m.Phase)
	}
	require.Len(t, *memos, 7)
}
