package cdi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// recordMemos collects every progress memo the workflow upserts, in order.
func recordMemos(env *testsuite.TestWorkflowEnvironment) *[]cdi.ImportProgress {
	var memos []cdi.ImportProgress
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		memos = append(memos, args.Get(0).(map[string]interface{})[cdi.ProgressMemoKey].(cdi.ImportProgress))
	})
	return &memos
}

// report has the test environment signal a disk activity's report after
// d on the workflow's clock.
func report(env *testsuite.TestWorkflowEnvironment, d time.Duration, r cdi.ActivityProgress) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(cdi.ProgressSignalName, r) }, d)
}

func expectImport(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(cdi.ImportDiskName, mock.Anything, testInput.Request).After(10*time.Minute).Return(
		cdi.ImportResult{Format: "raw", VirtualSize: 1 << 30}, nil).Once()
	env.OnActivity(cdi.CleanupDiskName, mock.Anything, testInput.Request, false).Return(nil).Once()
}

// The disk activity's reports reach the memo: its attempt, its percentage
// (a burst folded into one upsert), a failed attempt shown as the next one
// with the failure, an attempt whose predecessor was lost, and nothing of
// another activity's report; the completed step drops the activity.
func TestTheMemoCarriesWhatTheDiskActivityReports(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	expectImport(env)
	name := cdi.ImportDiskName
	report(env, time.Minute, cdi.ActivityProgress{Name: name, Attempt: 1})
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflowSkippingWorkflowTask(cdi.ProgressSignalName, cdi.ActivityProgress{Name: name, Attempt: 1, Percent: 30})
		env.SignalWorkflow(cdi.ProgressSignalName, cdi.ActivityProgress{Name: name, Attempt: 1, Percent: 40})
	}, 2*time.Minute)
	report(env, 3*time.Minute, cdi.ActivityProgress{Name: name, Attempt: 1, Percent: 40, Failure: "connection refused"})
	report(env, 4*time.Minute, cdi.ActivityProgress{Name: name, Attempt: 2})
	report(env, 5*time.Minute, cdi.ActivityProgress{Name: name, Attempt: 4, Percent: 5})
	report(env, 6*time.Minute, cdi.ActivityProgress{Name: cdi.CloneDiskName, Attempt: 9})

	env.ExecuteWorkflow(cdi.ImportWorkflowName, testInput)

	require.NoError(t, env.GetWorkflowError())
	act := func(a cdi.ActivityProgress) *cdi.ActivityProgress { a.Name = name; return &a }
	importing := func(a cdi.ActivityProgress) cdi.ImportProgress {
		return cdi.ImportProgress{Step: cdi.StepImporting, Activity: act(a)}
	}
	require.Equal(t, []cdi.ImportProgress{
		importing(cdi.ActivityProgress{}),
		importing(cdi.ActivityProgress{Attempt: 1}),
		importing(cdi.ActivityProgress{Attempt: 1, Percent: 40}),
		importing(cdi.ActivityProgress{Attempt: 2, Percent: 40, LastFailure: "connection refused"}),
		importing(cdi.ActivityProgress{Attempt: 2, LastFailure: "connection refused"}),
		importing(cdi.ActivityProgress{Attempt: 4, Percent: 5,
			LastFailure: "attempt 3 stopped without reporting a failure: its worker was lost or stopped heartbeating"}),
		{Step: cdi.StepCompleted, Format: "raw", VirtualSize: 1 << 30},
	}, *memos)
	env.AssertExpectations(t)
}

// A run recorded before the relay (DefaultVersion) publishes its steps
// as it did, and leaves reports unread.
func TestARunWithoutTheRelayPublishesOnlyItsSteps(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	env.OnGetVersion(progressRelayChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	expectImport(env)
	report(env, time.Minute, cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 1, Percent: 50})

	env.ExecuteWorkflow(cdi.ImportWorkflowName, testInput)

	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []cdi.ImportProgress{
		{Step: cdi.StepImporting},
		{Step: cdi.StepCompleted, Format: "raw", VirtualSize: 1 << 30},
	}, *memos)
}

// A report that arrives once the workflow has moved on to cleaning up a
// cancelled fill is not shown: the cleanup step has no disk activity.
func TestCleanupDropsTheActivitysProgress(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	env.OnActivity(cdi.ImportDiskName, mock.Anything, mock.Anything).After(time.Hour).Return(cdi.ImportResult{}, nil)
	env.OnActivity(cdi.CleanupDiskName, mock.Anything, testInput.Request, true).After(time.Minute).Return(nil).Once()
	report(env, time.Minute, cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 1, Percent: 10})
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Minute)
	report(env, 2*time.Minute+time.Second, cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 1, Percent: 20})

	env.ExecuteWorkflow(cdi.ImportWorkflowName, testInput)

	require.Error(t, env.GetWorkflowError())
	last := (*memos)[len(*memos)-1]
	require.Equal(t, cdi.ImportProgress{Step: cdi.StepCleanup}, last)
	env.AssertExpectations(t)
}
