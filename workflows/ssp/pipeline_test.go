package ssp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/virtflow/virtflow/contracts/ssp"
)

var pipelineIn = ssp.TemplatePipelineInput{
	Namespace: "vms", ServiceAccount: "pipeline", CustomRun: "deploy", CustomRunUID: "run-uid",
	CreateVM: ssp.Params{Strings: map[string]string{"templateName": "fedora-server-small", "runStrategy": "Always"},
		Arrays: map[string][]string{"templateParams": {"NAME:vm1"}}},
	WaitForVMI:  ssp.Params{Strings: map[string]string{"successCondition": "status.phase == Running"}},
	ExecuteInVM: ssp.Params{Strings: map[string]string{"secretName": "console"}, Arrays: map[string][]string{"command": {"uname", "-a"}}},
	CleanupVM:   ssp.Params{Strings: map[string]string{"delete": "true"}},
}

// task matches the request of one task.
func task(name string) any {
	return mock.MatchedBy(func(r ssp.TaskRequest) bool { return r.Task == name })
}

var created = ssp.TaskResult{Results: map[string]string{ssp.ResultName: "vm1", ssp.ResultNamespace: "vms"}}

func TestTemplatePipelineRunsItsTasksInOrderOnTheVMCreated(t *testing.T) {
	env := newEnv()
	var got []ssp.TaskRequest
	record := func(res ssp.TaskResult) func(context.Context, ssp.TaskRequest) (ssp.TaskResult, error) {
		return func(_ context.Context, r ssp.TaskRequest) (ssp.TaskResult, error) {
			got = append(got, r)
			return res, nil
		}
	}
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCreateVMFromTemplate)).Return(record(created)).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskWaitForVMIStatus)).Return(record(ssp.TaskResult{})).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskExecuteInVM)).Return(record(ssp.TaskResult{})).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCleanupVM)).Return(record(ssp.TaskResult{})).Once()

	env.ExecuteWorkflow(ssp.RunTemplatePipelineWorkflowName, pipelineIn)

	require.NoError(t, env.GetWorkflowError())
	var res ssp.TemplatePipelineResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, "vm1", res.VMName)
	require.Equal(t, "vms", res.VMNamespace)
	require.Len(t, got, 4)
	require.Equal(t, pipelineIn.CreateVM, got[0].Params)
	require.Equal(t, map[string]string{"successCondition": "status.phase == Running", "vmiName": "vm1", "vmiNamespace": "vms"}, got[1].Params.Strings)
	require.Equal(t, []string{"uname", "-a"}, got[2].Params.Arrays["command"])
	require.Equal(t, map[string]string{"secretName": "console", "vmName": "vm1", "vmNamespace": "vms"}, got[2].Params.Strings)
	require.Equal(t, map[string]string{"delete": "true", "vmName": "vm1", "vmNamespace": "vms"}, got[3].Params.Strings)
	for _, r := range got {
		require.Equal(t, "vms", r.Namespace)
		require.Equal(t, "pipeline", r.ServiceAccount)
		require.Equal(t, []string{"deploy", "run-uid"}, []string{r.CustomRun, r.CustomRunUID}, "each task names the CustomRun")
	}
	require.Equal(t, map[string]string{"successCondition": "status.phase == Running"}, pipelineIn.WaitForVMI.Strings, "the input is not changed")
	require.Equal(t, ssp.StepCompleted, progressOf(t, env).Step)
	env.AssertExpectations(t)
}

func TestTemplatePipelineCleansUpAfterAFailedTaskAndNamesIt(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCreateVMFromTemplate)).Return(created, nil).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskWaitForVMIStatus)).Return(ssp.TaskResult{},
		temporal.NewNonRetryableApplicationError("vmi vms/vm1 failed: status.phase in (Failed, Unknown)", ssp.ErrTypeTaskFailed, nil)).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCleanupVM)).Return(ssp.TaskResult{}, nil).Once()

	env.ExecuteWorkflow(ssp.RunTemplatePipelineWorkflowName, pipelineIn)

	var app *temporal.ApplicationError
	require.ErrorAs(t, env.GetWorkflowError(), &app)
	require.Equal(t, ssp.ErrTypeTaskFailed, app.Type())
	require.Equal(t, "task wait-for-vmi-status failed: vmi vms/vm1 failed: status.phase in (Failed, Unknown)", app.Message())
	env.AssertExpectations(t)
}

func TestTemplatePipelineReportsBothFailuresWhenCleanupFailsToo(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCreateVMFromTemplate)).Return(created, nil).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskWaitForVMIStatus)).Return(ssp.TaskResult{},
		temporal.NewNonRetryableApplicationError("timed out", ssp.ErrTypeTaskFailed, nil)).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCleanupVM)).Return(ssp.TaskResult{},
		temporal.NewNonRetryableApplicationError(`virtualmachines.kubevirt.io "vm1" is forbidden`, ssp.ErrTypeTaskFailed, nil)).Once()

	env.ExecuteWorkflow(ssp.RunTemplatePipelineWorkflowName, pipelineIn)

	require.ErrorContains(t, env.GetWorkflowError(), "task wait-for-vmi-status failed: timed out; task cleanup-vm failed: ")
}

func TestTemplatePipelineWithoutAVMHasNothingToCleanUp(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCreateVMFromTemplate)).Return(ssp.TaskResult{},
		temporal.NewNonRetryableApplicationError(`templates.template.openshift.io "nope" not found`, ssp.ErrTypeTaskFailed, nil)).Once()

	env.ExecuteWorkflow(ssp.RunTemplatePipelineWorkflowName, pipelineIn)

	require.ErrorContains(t, env.GetWorkflowError(), `task create-vm-from-template failed: templates.template.openshift.io "nope" not found`)
	env.AssertExpectations(t)
}

func TestCancelledTemplatePipelineStillCleansUp(t *testing.T) {
	env := newEnv()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCreateVMFromTemplate)).Return(created, nil).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskWaitForVMIStatus)).Return(ssp.TaskResult{}, nil).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskExecuteInVM)).Return(
		func(ctx context.Context, _ ssp.TaskRequest) (ssp.TaskResult, error) {
			<-ctx.Done()
			return ssp.TaskResult{}, ctx.Err()
		}).Once()
	env.OnActivity(ssp.RunTaskStepName, mock.Anything, task(ssp.TaskCleanupVM)).Return(ssp.TaskResult{}, nil).Once()
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)

	env.ExecuteWorkflow(ssp.RunTemplatePipelineWorkflowName, pipelineIn)

	var cancelled *temporal.CanceledError
	require.True(t, errors.As(env.GetWorkflowError(), &cancelled), "got %v", env.GetWorkflowError())
	env.AssertExpectations(t)
}
