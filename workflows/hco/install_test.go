package hco

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	acts "github.com/virtflow/virtflow/activities/hco"
)

var testHC = acts.HyperConvergedRef{Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "uid-1"}

var testPlan = []acts.ComponentRef{
	{Kind: acts.KindKubeVirt, APIVersion: "kubevirt.io/v1", Namespace: testHC.Namespace, Name: "kubevirt-kubevirt-hyperconverged"},
	{Kind: acts.KindCDI, APIVersion: "cdi.kubevirt.io/v1beta1", Name: "cdi-kubevirt-hyperconverged"},
}

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	// Real signatures, nil client: every call below is mocked.
	Register(env, &acts.Activities{})
	return env
}

func TestInstallCreatesThenWaitsForEveryComponent(t *testing.T) {
	env := newEnv(t)
	var order []string
	env.OnActivity(acts.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil).Once()
	env.OnActivity(acts.EnsureComponentName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in acts.EnsureComponentInput) error {
			order = append(order, "ensure "+in.Component.Kind)
			return nil
		}).Times(2)
	env.OnActivity(acts.WaitComponentAvailableName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ref acts.ComponentRef) (acts.ComponentStatus, error) {
			order = append(order, "wait "+ref.Kind)
			return acts.ComponentStatus{Component: ref, Available: true, Version: "v1"}, nil
		}).Times(2)

	env.ExecuteWorkflow(InstallWorkflowName, InstallInput{HyperConverged: testHC})

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res InstallResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Len(t, res.Components, 2)
	require.Equal(t, []string{"ensure KubeVirt", "ensure CDI"}, order[:2], "every CR is created before any wait")
	require.ElementsMatch(t, []string{"wait KubeVirt", "wait CDI"}, order[2:])

	val, err := env.QueryWorkflow(ProgressQuery)
	require.NoError(t, err)
	var p InstallProgress
	require.NoError(t, val.Get(&p))
	require.Equal(t, StepCompleted, p.Step)
	require.Equal(t, 2, p.Done())
}

func TestInstallFailsWhenAComponentNeverBecomesAvailable(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(acts.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil)
	env.OnActivity(acts.EnsureComponentName, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(acts.WaitComponentAvailableName, mock.Anything, testPlan[0]).Return(
		acts.ComponentStatus{}, temporal.NewNonRetryableApplicationError("virt-api not healthy", "Timeout", nil))
	env.OnActivity(acts.WaitComponentAvailableName, mock.Anything, testPlan[1]).Return(
		acts.ComponentStatus{Component: testPlan[1], Available: true}, nil)

	env.ExecuteWorkflow(InstallWorkflowName, InstallInput{HyperConverged: testHC})

	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "waiting for KubeVirt kubevirt-kubevirt-hyperconverged to become available")
	require.Contains(t, err.Error(), "virt-api not healthy")
}

func TestInstallStopsWhenHyperConvergedIsGone(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(acts.PlanComponentsName, mock.Anything, testHC).Return(nil,
		temporal.NewNonRetryableApplicationError("gone", acts.ErrHyperConvergedGone, nil)).Once()

	env.ExecuteWorkflow(InstallWorkflowName, InstallInput{HyperConverged: testHC})

	require.True(t, hasErrorType(env.GetWorkflowError(), acts.ErrHyperConvergedGone))
	env.AssertExpectations(t)
}

func TestCancelledInstallRemovesWhatItCreated(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(acts.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil)
	env.OnActivity(acts.EnsureComponentName, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(acts.WaitComponentAvailableName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ acts.ComponentRef) (acts.ComponentStatus, error) {
			<-ctx.Done()
			return acts.ComponentStatus{}, ctx.Err()
		})
	var deleted []acts.ComponentRef
	env.OnActivity(acts.DeleteComponentsName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, refs []acts.ComponentRef) error {
			deleted = refs
			return nil
		}).Once()
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)

	env.ExecuteWorkflow(InstallWorkflowName, InstallInput{HyperConverged: testHC})

	require.True(t, temporal.IsCanceledError(env.GetWorkflowError()))
	require.Equal(t, testPlan, deleted)
}

func TestProgressIsPublishedAsMemo(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(acts.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil)
	env.OnActivity(acts.EnsureComponentName, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(acts.WaitComponentAvailableName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ref acts.ComponentRef) (acts.ComponentStatus, error) {
			return acts.ComponentStatus{Component: ref, Available: true}, nil
		})
	var published []InstallProgress
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		memo := args.Get(0).(map[string]any)
		published = append(published, memo[ProgressMemoKey].(InstallProgress))
	}).Return(nil)

	env.ExecuteWorkflow(InstallWorkflowName, InstallInput{HyperConverged: testHC})

	require.NoError(t, env.GetWorkflowError())
	require.NotEmpty(t, published)
	steps := []string{}
	for _, p := range published {
		if len(steps) == 0 || steps[len(steps)-1] != p.Step {
			steps = append(steps, p.Step)
		}
	}
	require.Equal(t, []string{StepCreating, StepWaiting, StepCompleted}, steps)
	last := published[len(published)-1]
	require.Equal(t, 2, last.Done())

	// What the reconciler decodes is what the workflow published.
	payload, err := converter.GetDefaultDataConverter().ToPayload(last)
	require.NoError(t, err)
	var back InstallProgress
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(payload, &back))
	require.Equal(t, last, back)
}

// hasErrorType looks through every application error in the chain: the
// workflow wraps the activity's error in its own.
func hasErrorType(err error, typ string) bool {
	for err != nil {
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) {
			return false
		}
		if appErr.Type() == typ {
			return true
		}
		err = appErr.Unwrap()
	}
	return false
}
