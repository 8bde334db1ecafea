package cdi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/virtflow/virtflow/activities/cdicron"
)

var testCron = PollCronInput{Namespace: "golden", Name: "fedora-cron", UID: "uid-7"}

func newCronEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	RegisterWorkflows(env)
	// Real signatures, nil client: every call below is mocked.
	RegisterCronActivities(env, &cdicron.Activities{})
	return env
}

func cronProgress(t *testing.T, env *testsuite.TestWorkflowEnvironment) CronProgress {
	t.Helper()
	var p CronProgress
	require.NoError(t, env.GetWorkflowResult(&p))
	return p
}

func TestNewDigestIsImportedThenServedThenOldImportsCollected(t *testing.T) {
	env := newCronEnv()
	target := cdicron.ImportTarget{Cron: testCron, DataVolume: "fedora-0123456789ab", Digest: "sha256:new"}
	var order []string
	record := func(name string) func(args mock.Arguments) {
		return func(mock.Arguments) { order = append(order, name) }
	}
	env.OnActivity(cdicron.CheckSourceName, mock.Anything, testCron).Return(
		cdicron.SourceState{Digest: target.Digest, DataVolume: target.DataVolume}, nil).Once().Run(record("check"))
	env.OnActivity(cdicron.EnsureImportName, mock.Anything, target).Return(nil).Once().Run(record("ensure"))
	env.OnActivity(cdicron.WaitImportedName, mock.Anything, target).Return(nil).Once().Run(record("wait"))
	env.OnActivity(cdicron.PointDataSourceName, mock.Anything, target).Return(nil).Once().Run(record("point"))
	env.OnActivity(cdicron.GarbageCollectName, mock.Anything, target).Return([]string{"fedora-old"}, nil).Once().Run(record("gc"))

	env.ExecuteWorkflow(PollCronWorkflowName, testCron)

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"check", "ensure", "wait", "point", "gc"}, order)
	require.Equal(t, CronProgress{Step: CronStepCompleted, Digest: "sha256:new", DataVolume: target.DataVolume, Deleted: []string{"fedora-old"}},
		cronProgress(t, env))
	env.AssertExpectations(t)
}

func TestUnchangedDigestCreatesNothing(t *testing.T) {
	env := newCronEnv()
	env.OnActivity(cdicron.CheckSourceName, mock.Anything, testCron).Return(
		cdicron.SourceState{Digest: "sha256:same", DataVolume: "fedora-aaaaaaaaaaaa", UpToDate: true}, nil).Once()

	env.ExecuteWorkflow(PollCronWorkflowName, testCron)

	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, CronStepUpToDate, cronProgress(t, env).Step)
	for _, name := range []string{cdicron.EnsureImportName, cdicron.WaitImportedName, cdicron.PointDataSourceName, cdicron.GarbageCollectName} {
		env.AssertActivityNotCalled(t, name, mock.Anything, mock.Anything)
	}
}

func TestFailedImportFailsThePollAndKeepsTheDataSource(t *testing.T) {
	env := newCronEnv()
	env.OnActivity(cdicron.CheckSourceName, mock.Anything, testCron).Return(
		cdicron.SourceState{Digest: "sha256:bad", DataVolume: "fedora-bbbbbbbbbbbb"}, nil).Once()
	env.OnActivity(cdicron.EnsureImportName, mock.Anything, mock.Anything).Return(nil).Once()
	env.OnActivity(cdicron.WaitImportedName, mock.Anything, mock.Anything).Return(
		temporal.NewNonRetryableApplicationError("import into DataVolume golden/fedora-bbbbbbbbbbbb failed: Unsupported qcow2 version",
			cdicron.ErrTypeImportFailed, nil)).Once()

	env.ExecuteWorkflow(PollCronWorkflowName, testCron)

	err := env.GetWorkflowError()
	require.Error(t, err)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Contains(t, err.Error(), "Unsupported qcow2 version")
	env.AssertActivityNotCalled(t, cdicron.PointDataSourceName, mock.Anything, mock.Anything)
	env.AssertActivityNotCalled(t, cdicron.GarbageCollectName, mock.Anything, mock.Anything)
	env.AssertExpectations(t)
}

func TestUnreachableSourceFailsAfterAFewAttempts(t *testing.T) {
	env := newCronEnv()
	env.OnActivity(cdicron.CheckSourceName, mock.Anything, testCron).Return(
		cdicron.SourceState{}, errors.New("connection refused")).Times(5)

	env.ExecuteWorkflow(PollCronWorkflowName, testCron)

	require.ErrorContains(t, env.GetWorkflowError(), "connection refused")
	env.AssertActivityNotCalled(t, cdicron.EnsureImportName, mock.Anything, mock.Anything)
	env.AssertExpectations(t)
}
