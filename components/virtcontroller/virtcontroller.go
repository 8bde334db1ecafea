// Package virtcontroller is the virt-controller command: the VirtualMachine
// and VirtualMachineInstance controllers, which render launcher pods, with
// one leader among its replicas.
package virtcontroller

import (
	"context"
	"flag"
	"fmt"

	"github.com/virtflow/virtflow/components/manager"
	"github.com/virtflow/virtflow/operators/vm"
	"github.com/virtflow/virtflow/operators/vmi"
)

// Main runs virt-controller until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("virt-controller", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig; the pod's service account when empty")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mgr, err := manager.New(manager.Options{Kubeconfig: *kubeconfig, LeaderElectionID: "virt-controller"})
	if err != nil {
		return err
	}
	rec := mgr.GetEventRecorderFor("virt-controller")
	if err := (&vmi.Reconciler{Client: mgr.GetClient(), Recorder: rec}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the VirtualMachineInstance controller: %w", err)
	}
	if err := (&vm.Reconciler{Client: mgr.GetClient(), Recorder: rec}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the VirtualMachine controller: %w", err)
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running virt-controller: %w", err)
	}
	return nil
}
