package ssp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/virtflow/virtflow/contracts/ssp"
)

func newEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	RegisterWorkflows(env)
	ssp.RegisterTaskActivities(env, unmocked{})
	return env
}

var taskReq = ssp.TaskRequest{
	Task: "create-vm-from-template", Namespace: "vms", ServiceAccount: "create-vm-from-template-task",
	Params: ssp.Params{Strings: map[string]string{"templateName": "fedora-server-small"}, Arrays: map[string][]string{"templateParams": {"NAME:vm1"}}},
}

func progressOf(t *testing.T, env *testsuite.TestWorkflowEnvironment) ssp.Progress {
	t.Helper()
	v, err := env.QueryWorkflow(ssp.ProgressQuery)
	require.NoError(t, err)
	var p ssp.Progress
	require.NoError(t, v.Get(&p))
	return p
}

func TestRunTektonTaskReturnsTheTasksResults(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, taskReq).Return(
		ssp.TaskResult{Results: map[string]string{"name": "vm1", "namespace": "vms"}}, nil).Once()

	env.ExecuteWorkflow(ssp.RunTektonTaskWorkflowName, taskReq)

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res ssp.TaskResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, map[string]string{"name": "vm1", "namespace": "vms"}, res.Results)
	require.Equal(t, ssp.StepCompleted, progressOf(t, env).Step)
	env.AssertExpectations(t)
}

func TestRunTektonTaskRetriesWhatTheAPIServerFailedButNotTheTask(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, mock.Anything).Return(ssp.TaskResult{},
		temporal.NewApplicationError("the server is currently unable to handle the request", "ServiceUnavailable")).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, mock.Anything).Return(ssp.TaskResult{},
		temporal.NewNonRetryableApplicationError(`templates.template.openshift.io "fedora-server-small" not found`, ssp.ErrTypeTaskFailed, nil)).Once()

	env.ExecuteWorkflow(ssp.RunTektonTaskWorkflowName, taskReq)

	var app *temporal.ApplicationError
	require.ErrorAs(t, env.GetWorkflowError(), &app)
	require.Equal(t, ssp.ErrTypeTaskFailed, app.Type())
	require.Contains(t, env.GetWorkflowError().Error(), `"fedora-server-small" not found`)
	require.Equal(t, taskReq.Task, progressOf(t, env).Step, "the step that failed stays the progress")
	env.AssertExpectations(t)
}

func TestRunTektonTaskFailsAtOnceOnBadInput(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, mock.Anything).Return(ssp.TaskResult{},
		temporal.NewNonRetryableApplicationError("invalid input params for task create-vm-from-template: missing values", ssp.ErrTypeInvalidParams, nil)).Once()

	env.ExecuteWorkflow(ssp.RunTektonTaskWorkflowName, taskReq)

	var app *temporal.ApplicationError
	require.ErrorAs(t, env.GetWorkflowError(), &app)
	require.Equal(t, ssp.ErrTypeInvalidParams, app.Type())
	env.AssertExpectations(t)
}

// The test environment cancels the activity but does not wait for it
// (WaitForCancellation is not modelled there); the replayed cancelled
// history shows the real server's order.
func TestCancelledRunTektonTaskEndsCancelled(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ ssp.TaskRequest) (ssp.TaskResult, error) {
			<-ctx.Done()
			return ssp.TaskResult{}, ctx.Err()
		})
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)

	env.ExecuteWorkflow(ssp.RunTektonTaskWorkflowName, taskReq)

	var cancelled *temporal.CanceledError
	require.True(t, errors.As(env.GetWorkflowError(), &cancelled), "got %v", env.GetWorkflowError())
}
