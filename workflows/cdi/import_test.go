package cdi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/virtflow/virtflow/contracts/cdi"
)

var testInput = cdi.ImportInput{
	DataVolume: "default/fedora", Node: "node1",
	Request: cdi.ImportRequest{Namespace: "default", VolumeDir: "/pool/pvc-1", Source: cdi.SourceRef{URL: "http://x/disk.qcow2"}, Size: 1 << 30, Key: "uid-1"},
}

func newEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	RegisterWorkflows(env)
	cdi.RegisterDiskActivities(env, unmocked{})
	return env
}

func TestImportRunsOnTheNodeThenCleansScratchOnly(t *testing.T) {
	env := newEnv()
	var queues []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		queues = append(queues, info.TaskQueue)
	})
	env.OnActivity(cdi.ImportDiskName, mock.Anything, testInput.Request).Return(
		cdi.ImportResult{Format: "qcow2", VirtualSize: 1 << 29, ResumedFrom: 64 << 20}, nil).Once()
	env.OnActivity(cdi.CleanupDiskName, mock.Anything, testInput.Request, false).Return(nil).Once()

	env.ExecuteWorkflow(cdi.ImportWorkflowName, testInput)

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res cdi.ImportResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, "qcow2", res.Format)
	require.Equal(t, []string{"virtflow-node-node1", "virtflow-node-node1"}, queues, "the data path runs on the volume's node")
	env.AssertExpectations(t)
}

func TestImportThatCanNeverSucceedFailsWithTheReason(t *testing.T) {
	env := newEnv()
	env.OnActivity(cdi.ImportDiskName, mock.Anything, mock.Anything).Return(cdi.ImportResult{},
		temporal.NewNonRetryableApplicationError("Virtual image size 2 is larger than 1", cdi.ErrTypeTargetTooSmall, nil)).Once()

	env.ExecuteWorkflow(cdi.ImportWorkflowName, testInput)

	err := env.GetWorkflowError()
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Equal(t, cdi.ErrTypeTargetTooSmall, app.Type())
	require.Contains(t, err.Error(), "Virtual image size 2 is larger than 1")
}

func TestCancelledImportRemovesThePartialDisk(t *testing.T) {
	env := newEnv()
	env.OnActivity(cdi.ImportDiskName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ cdi.ImportRequest) (cdi.ImportResult, error) {
			<-ctx.Done()
			return cdi.ImportResult{}, ctx.Err()
		})
	env.OnActivity(cdi.CleanupDiskName, mock.Anything, testInput.Request, true).Return(nil).Once()
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)

	env.ExecuteWorkflow(cdi.ImportWorkflowName, testInput)

	require.Error(t, env.GetWorkflowError())
	env.AssertExpectations(t)
}
