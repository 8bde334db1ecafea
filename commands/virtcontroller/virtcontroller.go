// Package virtcontroller is the virt-controller command: the VirtualMachine
// and VirtualMachineInstance controllers, which render launcher pods, and
// the migration controller, which runs each migration as a workflow, and
// the evacuation controller, which migrates the VMIs a drain evicts, with
// one leader among its replicas.
package virtcontroller

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/contracts/temporalauth"
	"github.com/virtflow/virtflow/operators/kubevirt/evacuation"
	"github.com/virtflow/virtflow/operators/kubevirt/migration"
	"github.com/virtflow/virtflow/operators/kubevirt/vm"
	"github.com/virtflow/virtflow/operators/kubevirt/vmi"
	"github.com/virtflow/virtflow/operators/kubevirt/vmireplicaset"
	"github.com/virtflow/virtflow/operators/kubevirt/vmpool"
)

// Main runs virt-controller until ctx ends.
func Main(ctx context.Context, args []string) error {
	cmd := manager.Command{Name: "virt-controller", LeaderElectionID: "virt-controller", Temporal: true}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, tc client.Client) error {
		rec := mgr.GetEventRecorderFor("virt-controller")
		migrations := &migration.Reconciler{Client: mgr.GetClient(), Temporal: tc, TaskQueue: temporalauth.ControlTaskQueue, Recorder: rec}
		if err := migrations.SetupWithManager(mgr); err != nil {
			return err
		}
		evacuations := &evacuation.Reconciler{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Recorder: rec}
		if err := evacuations.SetupWithManager(mgr); err != nil {
			return err
		}
		if err := (&vmi.Reconciler{Client: mgr.GetClient(), Recorder: rec}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the VirtualMachineInstance controller: %w", err)
		}
		if err := (&vm.Reconciler{Client: mgr.GetClient(), Recorder: rec}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the VirtualMachine controller: %w", err)
		}
		rs := &vmireplicaset.Reconciler{Client: mgr.GetClient(), Recorder: rec, APIReader: mgr.GetAPIReader()}
		if err := rs.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the VirtualMachineInstanceReplicaSet controller: %w", err)
		}
		pools := &vmpool.Reconciler{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Recorder: rec}
		if err := pools.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the VirtualMachinePool controller: %w", err)
		}
		return nil
	})
}
