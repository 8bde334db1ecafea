// Package controlworker is the virtflow-worker Deployment's command: the
// Temporal worker of the virtflow-control task queue, which runs the
// install, upgrade, import, upload, clone and migration workflows, the
// durable Tekton tasks, and their cluster-side activities.
package controlworker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/worker"
)

// Main runs the control worker until ctx ends.
func Main(ctx context.Context, args []string) error {
	cmd := manager.Command{Name: "control-worker", Temporal: true}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, tc client.Client) error {
		direct, err := manager.Direct(mgr)
		if err != nil {
			return err
		}
		// The durable tasks act as their CustomRuns' service accounts
		// through the worker's own credentials.
		r := &runner{w: worker.NewControl(tc, direct, worker.WithDurableTasks(mgr.GetConfig()))}
		if err := mgr.Add(r); err != nil {
			return fmt.Errorf("adding the worker: %w", err)
		}
		if err := mgr.AddReadyzCheck("polling", r.ready); err != nil {
			return fmt.Errorf("adding readiness check: %w", err)
		}
		return nil
	})
}

// runner polls the task queue while the manager runs.
type runner struct {
	w       sdkworker.Worker
	polling atomic.Bool
}

// Start starts the worker and stops it, draining its tasks, when ctx ends.
func (r *runner) Start(ctx context.Context) error {
	if err := r.w.Start(); err != nil {
		return fmt.Errorf("starting the worker on %s: %w", worker.ControlTaskQueue, err)
	}
	r.polling.Store(true)
	<-ctx.Done()
	r.polling.Store(false)
	r.w.Stop()
	return nil
}

func (r *runner) ready(*http.Request) error {
	if !r.polling.Load() {
		return errors.New("the worker is not polling " + worker.ControlTaskQueue)
	}
	return nil
}
