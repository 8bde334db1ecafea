package cdi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/virtflow/virtflow/contracts/cdi"
)

var testCron = cdi.PollCronInput{Namespace: "golden", Name: "fedora-cron", UID: "uid-7"}

func newCronEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	RegisterWorkflows(env)
	cdi.RegisterCronActivities(env, unmocked{})
	// Every poll records itself on the cron; tests that care assert on it.
	env.OnActivity(cdi.RecordPollName, mock.Anything, mock.Anything).Return(nil).Maybe()
	return env
}

func cronProgress(t *testing.T, env *testsuite.TestWorkflowEnvironment) cdi.CronProgress {
	t.Helper()
	var p cdi.CronProgress
	require.NoError(t, env.GetWorkflowResult(&p))
	return p
}

func TestNewDigestIsImportedThenServedThenOldImportsCollected(t *testing.T) {
	env := newCronEnv()
	target := cdi.ImportTarget{Cron: testCron, DataVolume: "fedora-0123456789ab", Digest: "sha256:new"}
	var order []string
	record := func(name string) func(args mock.Arguments) {
		return func(mock.Arguments) { order = append(order, name) }
	}
	env.OnActivity(cdi.CheckSourceName, mock.Anything, testCron).Return(
		cdi.SourceState{Digest: target.Digest, DataVolume: target.DataVolume}, nil).Once().Run(record("check"))
	env.OnActivity(cdi.EnsureImportName, mock.Anything, target).Return(nil).Once().Run(record("ensure"))
	env.OnActivity(cdi.WaitImportedName, mock.Anything, target).Return(nil).Once().Run(record("wait"))
	env.OnActivity(cdi.PointDataSourceName, mock.Anything, target).Return(nil).Once().Run(record("point"))
	env.OnActivity(cdi.GarbageCollectName, mock.Anything, target).Return([]string{"fedora-old"}, nil).Once().Run(record("gc"))

	env.ExecuteWorkflow(cdi.PollCronWorkflowName, testCron)

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"check", "ensure", "wait", "point", "gc"}, order)
	require.Equal(t, cdi.CronProgress{Step: cdi.CronStepCompleted, Digest: "sha256:new", DataVolume: target.DataVolume, Deleted: []string{"fedora-old"}},
		cronProgress(t, env))
	env.AssertExpectations(t)
}

func TestUnchangedDigestCreatesNothing(t *testing.T) {
	env := newCronEnv()
	env.OnActivity(cdi.CheckSourceName, mock.Anything, testCron).Return(
		cdi.SourceState{Digest: "sha256:same", DataVolume: "fedora-aaaaaaaaaaaa", UpToDate: true}, nil).Once()

	env.ExecuteWorkflow(cdi.PollCronWorkflowName, testCron)

	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, cdi.CronStepUpToDate, cronProgress(t, env).Step)
	for _, name := range []string{cdi.EnsureImportName, cdi.WaitImportedName, cdi.PointDataSourceName, cdi.GarbageCollectName} {
		env.AssertActivityNotCalled(t, name, mock.Anything, mock.Anything)
	}
}

func TestFailedImportFailsThePollAndKeepsTheDataSource(t *testing.T) {
	env := newCronEnv()
	env.OnActivity(cdi.CheckSourceName, mock.Anything, testCron).Return(
		cdi.SourceState{Digest: "sha256:bad", DataVolume: "fedora-bbbbbbbbbbbb"}, nil).Once()
	env.OnActivity(cdi.EnsureImportName, mock.Anything, mock.Anything).Return(nil).Once()
	env.OnActivity(cdi.WaitImportedName, mock.Anything, mock.Anything).Return(
		temporal.NewNonRetryableApplicationError("import into DataVolume golden/fedora-bbbbbbbbbbbb failed: Unsupported qcow2 version",
			cdi.ErrTypeImportFailed, nil)).Once()

	env.ExecuteWorkflow(cdi.PollCronWorkflowName, testCron)

	err := env.GetWorkflowError()
	require.Error(t, err)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app))
	require.Contains(t, err.Error(), "Unsupported qcow2 version")
	env.AssertActivityNotCalled(t, cdi.PointDataSourceName, mock.Anything, mock.Anything)
	env.AssertActivityNotCalled(t, cdi.GarbageCollectName, mock.Anything, mock.Anything)
	env.AssertExpectations(t)
}

func TestUnreachableSourceFailsAfterAFewAttempts(t *testing.T) {
	env := newCronEnv()
	env.OnActivity(cdi.CheckSourceName, mock.Anything, testCron).Return(
		cdi.SourceState{}, errors.New("connection refused")).Times(5)

	env.ExecuteWorkflow(cdi.PollCronWorkflowName, testCron)

	require.ErrorContains(t, env.GetWorkflowError(), "connection refused")
	env.AssertActivityNotCalled(t, cdi.EnsureImportName, mock.Anything, mock.Anything)
	env.AssertExpectations(t)
}

func TestEveryPollIsRecordedOnItsCronEvenWhenTheCheckFails(t *testing.T) {
	for _, checkErr := range []error{nil, temporal.NewNonRetryableApplicationError("no URL", cdi.ErrTypeUnsupportedSource, nil)} {
		var s testsuite.WorkflowTestSuite
		env := s.NewTestWorkflowEnvironment()
		RegisterWorkflows(env)
		cdi.RegisterCronActivities(env, unmocked{})
		start := env.Now()
		env.OnActivity(cdi.CheckSourceName, mock.Anything, testCron).Return(
			cdi.SourceState{Digest: "sha256:same", DataVolume: "fedora-aaaaaaaaaaaa", UpToDate: true}, checkErr).Once()
		var rec cdi.PollRecord
		env.OnActivity(cdi.RecordPollName, mock.Anything, mock.Anything).Return(
			func(_ context.Context, r cdi.PollRecord) error { rec = r; return nil }).Once()

		env.ExecuteWorkflow(cdi.PollCronWorkflowName, testCron)

		env.AssertExpectations(t)
		require.Equal(t, testCron, rec.Cron)
		require.WithinDuration(t, start, rec.Time, time.Second, "the poll's own start time, from the workflow clock")
		if checkErr == nil {
			require.NoError(t, env.GetWorkflowError())
			require.Equal(t, "sha256:same", rec.Digest)
		} else {
			require.ErrorContains(t, env.GetWorkflowError(), "no URL")
			require.Empty(t, rec.Digest)
		}
	}
}

func TestAPollThatCannotRecordItselfFails(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	RegisterWorkflows(env)
	cdi.RegisterCronActivities(env, unmocked{})
	env.OnActivity(cdi.CheckSourceName, mock.Anything, testCron).Return(
		cdi.SourceState{Digest: "sha256:same", DataVolume: "fedora-aaaaaaaaaaaa", UpToDate: true}, nil).Once()
	env.OnActivity(cdi.RecordPollName, mock.Anything, mock.Anything).Return(
		temporal.NewNonRetryableApplicationError("gone", cdi.ErrTypeCronGone, nil)).Once()

	env.ExecuteWorkflow(cdi.PollCronWorkflowName, testCron)

	require.ErrorContains(t, env.GetWorkflowError(), "recording the poll on DataImportCron golden/fedora-cron")
}
