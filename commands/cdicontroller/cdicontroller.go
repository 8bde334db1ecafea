// Package cdicontroller is cdi-deployment's command: the DataVolume,
// import populator, StorageProfile, DataSource, DataImportCron and
// CDIConfig controllers, which start CDI's imports, uploads and clones as
// Temporal workflows, with one leader among its replicas.
package cdicontroller

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/operators/cdi/cdiconfig"
	"github.com/virtflow/virtflow/operators/cdi/dataimportcron"
	"github.com/virtflow/virtflow/operators/cdi/datasource"
	"github.com/virtflow/virtflow/operators/cdi/datavolume"
	"github.com/virtflow/virtflow/operators/cdi/storageprofile"
	"github.com/virtflow/virtflow/operators/cdi/volumepopulator"
	"github.com/virtflow/virtflow/worker"
)

// Main runs cdi-deployment's controller until ctx ends.
func Main(ctx context.Context, args []string) error {
	cmd := manager.Command{Name: "cdi-controller", LeaderElectionID: "cdi-controller-leader-election-helper", Temporal: true}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, tc client.Client) error {
		return Setup(mgr, tc, &cdiconfig.Reconciler{Client: mgr.GetClient(), Namespace: manager.Namespace()})
	})
}

// Setup adds CDI's controllers to mgr; config, when not nil, keeps
// CDIConfig and knows where cdi-uploadproxy is.
func Setup(mgr ctrl.Manager, tc client.Client, config *cdiconfig.Reconciler) error {
	if config != nil {
		if err := config.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the CDIConfig controller: %w", err)
		}
	}
	dv := &datavolume.Reconciler{
		Client: mgr.GetClient(), Temporal: tc, TaskQueue: worker.ControlTaskQueue,
		Recorder: mgr.GetEventRecorderFor("datavolume-controller"),
	}
	if err := dv.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the DataVolume controller: %w", err)
	}
	populator := &volumepopulator.Reconciler{
		Client: mgr.GetClient(), Temporal: tc, TaskQueue: worker.ControlTaskQueue,
		Recorder: mgr.GetEventRecorderFor("import-populator"),
	}
	if err := populator.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the import populator: %w", err)
	}
	if err := (&storageprofile.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the StorageProfile controller: %w", err)
	}
	if err := (&datasource.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the DataSource controller: %w", err)
	}
	dic := &dataimportcron.Reconciler{
		Client: mgr.GetClient(), Temporal: tc, Schedules: tc.ScheduleClient(),
		TaskQueue: worker.ControlTaskQueue, Recorder: mgr.GetEventRecorderFor("dataimportcron-controller"),
	}
	if err := dic.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the DataImportCron controller: %w", err)
	}
	return nil
}
