// Package hostpathcsi is the hostpath-provisioner CSI driver's command, the
// driver container of the hostpath-provisioner-csi DaemonSet: it serves
// kubevirt.io.hostpath-provisioner on a socket its sidecars share
// (node-driver-registrar registers it with the kubelet, external-provisioner
// creates and deletes its volumes) for the pools HostPathProvisioner CRs
// define.
package hostpathcsi

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/virtflow/virtflow/components/manager"
	"github.com/virtflow/virtflow/node/hostpath"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/operators/component"
)

// Main runs the driver until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hostpath-csi", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig; the pod's service account when empty")
	socket := fs.String("csi-address", "/csi/csi.sock", "the driver's socket, shared with its sidecars")
	hostRoot := fs.String("host-root", "/", "prefix of every storage pool's path on the node")
	if err := fs.Parse(args); err != nil {
		return err
	}
	node := os.Getenv(component.NodeNameEnv)
	if node == "" {
		return errors.New("the CSI driver needs its node's name in " + component.NodeNameEnv)
	}
	mgr, err := manager.New(manager.Options{Kubeconfig: *kubeconfig})
	if err != nil {
		return err
	}
	cfg := hostpath.Config{NodeName: node, HostRoot: *hostRoot, Version: operands.Version, SocketPath: *socket, Sidecars: true}
	if err := hostpath.Setup(mgr, cfg); err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the hostpath CSI driver: %w", err)
	}
	return nil
}
