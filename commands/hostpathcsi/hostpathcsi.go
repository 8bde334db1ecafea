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
	"os"

	"go.temporal.io/sdk/client"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/node/hostpath"
	"github.com/virtflow/virtflow/operands"
)

// Main runs the driver until ctx ends.
func Main(ctx context.Context, args []string) error {
	var socket, hostRoot string
	cmd := manager.Command{Name: "hostpath-csi", Flags: func(fs *flag.FlagSet) {
		fs.StringVar(&socket, "csi-address", "/csi/csi.sock", "the driver's socket, shared with its sidecars")
		fs.StringVar(&hostRoot, "host-root", "/", "prefix of every storage pool's path on the node")
	}}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ client.Client) error {
		node := os.Getenv(workloads.NodeNameEnv)
		if node == "" {
			return errors.New("the CSI driver needs its node's name in " + workloads.NodeNameEnv)
		}
		cfg := hostpath.Config{NodeName: node, HostRoot: hostRoot, Version: operands.Version, SocketPath: socket, Sidecars: true}
		return hostpath.Setup(mgr, cfg)
	})
}
