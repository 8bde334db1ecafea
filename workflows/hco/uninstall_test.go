package hco

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/virtflow/virtflow/contracts/hco"
)

func TestUninstallDeletesThenWaitsUntilEveryComponentIsGone(t *testing.T) {
	env := newEnv(t)
	var order []string
	env.OnActivity(hco.DeleteComponentsName, mock.Anything, testPlan).Return(
		func(context.Context, []hco.ComponentRef) error { order = append(order, "delete"); return nil }).Once()
	env.OnActivity(hco.WaitComponentsGoneName, mock.Anything, testPlan).Return(
		func(context.Context, []hco.ComponentRef) error { order = append(order, "wait"); return nil }).Once()
	var steps []string
	env.OnUpsertMemo(mock.Anything).Run(func(args mock.Arguments) {
		steps = append(steps, args.Get(0).(map[string]any)[hco.ProgressMemoKey].(hco.UninstallProgress).Step)
	}).Return(nil)
	env.ExecuteWorkflow(hco.UninstallWorkflowName, hco.UninstallInput{HyperConverged: testHC, Components: testPlan})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{"delete", "wait"}, order)
	require.Equal(t, []string{hco.StepDeleting, hco.StepRemoving, hco.StepCompleted}, steps)
}

func TestUninstallFailsWithTheDeletionsReason(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(hco.DeleteComponentsName, mock.Anything, testPlan).Return(
		temporal.NewNonRetryableApplicationError("cdis.cdi.kubevirt.io is forbidden", "Forbidden", nil))
	env.ExecuteWorkflow(hco.UninstallWorkflowName, hco.UninstallInput{HyperConverged: testHC, Components: testPlan})
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, "deleting the components of HyperConverged kubevirt-hyperconverged/kubevirt-hyperconverged")
	require.ErrorContains(t, err, "forbidden")
}
