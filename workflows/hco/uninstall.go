package hco

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/hco"
)

// UninstallHyperConverged deletes the component CRs of a HyperConverged
// being deleted and waits until their operators have let them go, so the
// HyperConverged's finalizer is only dropped once nothing it owned is left.
// It is the only path that deletes components; hco-operator merely starts
// it and waits for it.
func UninstallHyperConverged(ctx workflow.Context, in hco.UninstallInput) error {
	p := hco.UninstallProgress{Step: hco.StepDeleting, Remaining: in.Components}
	publishUninstall(ctx, p)
	if err := hco.DeleteComponents.Execute(shortOptions(ctx), in.Components); err != nil {
		return fmt.Errorf("deleting the components of HyperConverged %s/%s: %w", in.HyperConverged.Namespace, in.HyperConverged.Name, err)
	}
	p.Step = hco.StepRemoving
	publishUninstall(ctx, p)
	if err := hco.WaitComponentsGone.Execute(goneOptions(ctx), in.Components); err != nil {
		return fmt.Errorf("waiting for the components of HyperConverged %s/%s to be removed: %w", in.HyperConverged.Namespace, in.HyperConverged.Name, err)
	}
	publishUninstall(ctx, hco.UninstallProgress{Step: hco.StepCompleted})
	return nil
}

func publishUninstall(ctx workflow.Context, p hco.UninstallProgress) {
	if err := workflow.UpsertMemo(ctx, map[string]any{hco.ProgressMemoKey: p}); err != nil {
		workflow.GetLogger(ctx).Warn("publishing uninstall progress", "error", err)
	}
}

// goneOptions wait as long as component operators may take to tear down
// what they deployed; the heartbeat notices a lost worker within seconds.
func goneOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    15 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 15 * time.Second},
	})
}
