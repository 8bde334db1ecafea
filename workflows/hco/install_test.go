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

	"github.com/virtflow/virtflow/contracts/hco"
)

var testHC = hco.HyperConvergedRef{Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "uid-1"}

var testPlan = []hco.ComponentRef{
	{Kind: hco.KindKubeVirt, APIVersion: "kubevirt.io/v1", Namespace: testHC.Namespace, Name: "kubevirt-kubevirt-hyperconverged"},
	{Kind: hco.KindCDI, APIVersion: "cdi.kubevirt.io/v1beta1", Name: "cdi-kubevirt-hyperconverged"},
}

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	RegisterWorkflows(env)
	hco.RegisterActivities(env, unmocked{})
	return env
}

func TestInstallCreatesThenWaitsForEveryComponent(t *testing.T) {
	env := newEnv(t)
	var order []string
	env.OnActivity(hco.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil).Once()
	env.OnActivity(hco.EnsureComponentName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in hco.EnsureComponentInput) error {
			order = append(order, "ensure "+in.Component.Kind)
			return nil
		}).Times(2)
	env.OnActivity(hco.WaitComponentAvailableName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ref hco.ComponentRef) (hco.ComponentStatus, error) {
			order = append(order, "wait "+ref.Kind)
			return hco.ComponentStatus{Component: ref, Available: true, Version: "v1"}, nil
		}).Times(2)

	env.ExecuteWorkflow(hco.InstallWorkflowName, hco.InstallInput{HyperConverged: testHC})

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res hco.InstallResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Len(t, res.Components, 2)
	require.Equal(t, []string{"ensure KubeVirt", "ensure CDI"}, order[:2], "every CR is created before any wait")
	require.ElementsMatch(t, []string{"wait KubeVirt", "wait CDI"}, order[2:])

	val, err := env.QueryWorkflow(hco.ProgressQuery)
	require.NoError(t, err)
	var p hco.InstallProgress
	require.NoError(t, val.Get(&p))
	require.Equal(t, hco.StepCompleted, p.Step)
	require.Equal(t, 2, p.Done())
}

func TestInstallFailsWhenAComponentNeverBecomesAvailable(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(hco.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil)
	env.OnActivity(hco.EnsureComponentName, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(hco.WaitComponentAvailableName, mock.Anything, testPlan[0]).Return(
		hco.ComponentStatus{}, temporal.NewNonRetryableApplicationError("virt-api not healthy", "Timeout", nil))
	env.OnActivity(hco.WaitComponentAvailableName, mock.Anything, testPlan[1]).Return(
		hco.ComponentStatus{Component: testPlan[1], Available: true}, nil)

	env.ExecuteWorkflow(hco.InstallWorkflowName, hco.InstallInput{HyperConverged: testHC})

	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "waiting for KubeVirt kubevirt-kubevirt-hyperconverged to become available")
	require.Contains(t, err.Error(), "virt-api not healthy")
}

func TestInstallStopsWhenHyperConvergedIsGone(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(hco.PlanComponentsName, mock.Anything, testHC).Return(nil,
		temporal.NewNonRetryableApplicationError("gone", hco.ErrHyperConvergedGone, nil)).Once()

	env.ExecuteWorkflow(hco.InstallWorkflowName, hco.InstallInput{HyperConverged: testHC})

	require.True(t, hasErrorType(env.GetWorkflowError(), hco.ErrHyperConvergedGone))
	env.AssertExpectations(t)
}

func TestCancelledInstallRemovesWhatItCreated(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(hco.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil)
	env.OnActivity(hco.EnsureComponentName, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(hco.WaitComponentAvailableName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ hco.ComponentRef) (hco.ComponentStatus, error) {
			<-ctx.Done()
			return hco.ComponentStatus{}, ctx.Err()
		})
	var deleted []hco.ComponentRef
	env.OnActivity(hco.DeleteComponentsName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, refs []hco.ComponentRef) error {
			deleted = refs
			return nil
		}).Once()
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Second)

	env.ExecuteWorkflow(hco.InstallWorkflowName, hco.InstallInput{HyperConverged: testHC})

	require.True(t, temporal.IsCanceledError(env.GetWorkflowError()))
	require.Equal(t, testPlan, deleted)
}

func TestProgressIsPublishedAsMemo(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(hco.PlanComponentsName, mock.Anything, testHC).Return(testPlan, nil)
	env.OnActivity(hco.EnsureComponentName, mock.Anything, mock.Anything).Return(nil)
	env.OnActivity(hco.WaitComponentAvailableName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ref hco.ComponentRef) (hco.ComponentStatus, error) {
			return hco.ComponentStatus{Component: ref, Available: true}, nil
		})
	var published []hco.InstallProgress
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		memo := args.Get(0).(map[string]any)
		published = append(published, memo[hco.ProgressMemoKey].(hco.InstallProgress))
	}).Return(nil)

	env.ExecuteWorkflow(hco.InstallWorkflowName, hco.InstallInput{HyperConverged: testHC})

	require.NoError(t, env.GetWorkflowError())
	require.NotEmpty(t, published)
	steps := []string{}
	for _, p := range published {
		if len(steps) == 0 || steps[len(steps)-1] != p.Step {
			steps = append(steps, p.Step)
		}
	}
	require.Equal(t, []string{hco.StepCreating, hco.StepWaiting, hco.StepCompleted}, steps)
	last := published[len(published)-1]
	require.Equal(t, 2, last.Done())

	// What the reconciler decodes is what the workflow published.
	payload, err := converter.GetDefaultDataConverter().ToPayload(last)
	require.NoError(t, err)
	var back hco.InstallProgress
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
