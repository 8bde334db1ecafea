package ssp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// recordMemos collects every progress memo the workflow upserts, in order.
func recordMemos(env *testsuite.TestWorkflowEnvironment) *[]ssp.Progress {
	var memos []ssp.Progress
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		memos = append(memos, args.Get(0).(map[string]interface{})[ssp.ProgressMemoKey].(ssp.Progress))
	})
	return &memos
}

func report(env *testsuite.TestWorkflowEnvironment, d time.Duration, r ssp.ActivityProgress) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(ssp.ProgressSignalName, r) }, d)
}

// The task activity's attempts reach the memo: a failed attempt shows as
// the next one with the failure, which that attempt's own report keeps;
// a report of another task is dropped; completion drops the activity.
func TestTheMemoCarriesTheTasksAttempts(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, taskReq).After(10*time.Minute).Return(ssp.TaskResult{}, nil).Once()
	task := taskReq.Task
	report(env, time.Minute, ssp.ActivityProgress{Name: task, Attempt: 1})
	report(env, 2*time.Minute, ssp.ActivityProgress{Name: task, Attempt: 1, Failure: "the server is currently unable to handle the request"})
	report(env, 3*time.Minute, ssp.ActivityProgress{Name: task, Attempt: 2})
	report(env, 4*time.Minute, ssp.ActivityProgress{Name: "cleanup-vm", Attempt: 7})

	env.ExecuteWorkflow(ssp.RunTektonTaskWorkflowName, taskReq)

	require.NoError(t, env.GetWorkflowError())
	running := func(a ssp.ActivityProgress) ssp.Progress {
		a.Name = task
		return ssp.Progress{Step: task, Message: "Running task " + task, Activity: &a}
	}
	failure := "the server is currently unable to handle the request"
	require.Equal(t, []ssp.Progress{
		running(ssp.ActivityProgress{}),
		running(ssp.ActivityProgress{Attempt: 1}),
		running(ssp.ActivityProgress{Attempt: 2, LastFailure: failure}),
		running(ssp.ActivityProgress{Attempt: 2, LastFailure: failure}),
		{Step: ssp.StepCompleted, Message: "Task " + task + " completed"},
	}, *memos)
}

// A run recorded before the relay (DefaultVersion) publishes its steps as
// it did, and leaves reports unread.
func TestATaskRunWithoutTheRelayPublishesOnlyItsSteps(t *testing.T) {
	env := newEnv()
	memos := recordMemos(env)
	env.OnGetVersion(progressRelayChange, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, taskReq).After(time.Hour).Return(ssp.TaskResult{}, nil).Once()
	report(env, time.Minute, ssp.ActivityProgress{Name: taskReq.Task, Attempt: 1})

	env.ExecuteWorkflow(ssp.RunTektonTaskWorkflowName, taskReq)

	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []ssp.Progress{
		{Step: taskReq.Task, Message: "Running task " + taskReq.Task},
		{Step: ssp.StepCompleted, Message: "Task " + taskReq.Task + " completed"},
	}, *memos)
}
