// Package cli parses the virtflow command line.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/commands/bridgemarker"
	"github.com/virtflow/virtflow/commands/cdiapiserver"
	"github.com/virtflow/virtflow/commands/cdicontroller"
	"github.com/virtflow/virtflow/commands/cdiuploadproxy"
	"github.com/virtflow/virtflow/commands/clidownload"
	"github.com/virtflow/virtflow/commands/componentoperator"
	"github.com/virtflow/virtflow/commands/console"
	"github.com/virtflow/virtflow/commands/controlworker"
	"github.com/virtflow/virtflow/commands/hcooperator"
	"github.com/virtflow/virtflow/commands/hcowebhook"
	"github.com/virtflow/virtflow/commands/hostpathcsi"
	"github.com/virtflow/virtflow/commands/kubemacpool"
	"github.com/virtflow/virtflow/commands/kubevirtipamcontroller"
	"github.com/virtflow/virtflow/commands/multus"
	"github.com/virtflow/virtflow/commands/templatevalidator"
	"github.com/virtflow/virtflow/commands/virtapiserver"
	"github.com/virtflow/virtflow/commands/virtcontroller"
	"github.com/virtflow/virtflow/commands/virthandler"
	"github.com/virtflow/virtflow/console/web"
	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/launcher"
)

const usage = `usage: virtflow <command> [flags]

commands:
  up       run the embedded platform (Kubernetes, Temporal, operators) until Ctrl-C
  down     stop a running "virtflow up"; --purge also removes the node's pods (and VMs) and network from the host
  status   report whether the platform is up and each component's condition
  worker   run the Temporal worker for the control task queue on its own (--node NAME: a node's)
  template process [TEMPLATE] [-n NS] [-p NAME=VALUE]...
           process a template (oc process semantics) and print the objects as a List
  prepare  build (first run) the pinned Kubernetes binaries, containerd, CoreDNS and the registry into the cache
  virt-api --cert-dir DIR
           run virt-api (its Deployment's command)
  virt-controller
           run virt-controller (its Deployment's command)
  virt-handler --kubelet-root DIR --node-dir DIR --temporal-address HOST:PORT
           run virt-handler on the node named by $NODE_NAME (its DaemonSet's command)
  cdi-apiserver --cert-dir DIR --key-dir DIR
           run cdi-apiserver (its Deployment's command)
  cdi-controller --temporal-address HOST:PORT
           run cdi-deployment's controller (its Deployment's command)
  cdi-uploadproxy --cert-dir DIR --key-dir DIR
           run cdi-uploadproxy (its Deployment's command)
  virt-operator|cdi-operator|hostpath-provisioner-operator|cluster-network-addons-operator|ssp-operator
           run a component operator with in-cluster credentials (its Deployment's command)
  hco-operator --temporal-address HOST:PORT
           run hco-operator with in-cluster credentials (its Deployment's command)
  hco-webhook --cert-dir DIR
           run hco-webhook (its Deployment's command)
  cli-download [--dir DIR]
           serve the virtctl builds (hco cli-download's Deployment command)
  virt-template-validator --cert-dir DIR
           run SSP's template validator (its Deployment's command)
  kubemacpool [--cert-dir DIR] [--range-start MAC --range-end MAC] [--wait-time SECONDS]
           run kubemacpool's MAC pool and VM webhook (its Deployment's command)
  kubevirt-ipam-controller [--certificates-dir DIR] [--default-network-nad-namespace NS]
           keep the IPAMClaims of VMs on networks allowing persistent IPs and name them in launcher pods (its Deployment's command)
  multus --cni-conf-dir DIR --cni-bin-dir DIR [--master-cni-file NAME]
           keep the node's 00-multus.conf and Multus's kubeconfig (the multus DaemonSet's container)
  bridge-marker --node-name NAME [--update-interval SECONDS] [--health-probe-port PORT]
           publish the node's Linux bridges as bridge.network.kubevirt.io/<bridge> (its DaemonSet's command)
  control-worker --temporal-address HOST:PORT
           run the control worker with in-cluster credentials (the virtflow-worker Deployment's command)
  console --listen ADDR --temporal-address HOST:PORT --temporal-ui URL [--kubeconfig FILE]
           serve the web console (logins act as the user's own token, never the console's)
  hostpath-csi --csi-address SOCKET --host-root DIR
           run the hostpath CSI driver on the node named by $NODE_NAME (its DaemonSet's driver container)
  virt-launcher --dir DIR
           run one VMI's launcher (started by the node agent)
  csi-node-registrar --kubelet-registration-path PATH
           register the hostpath CSI driver with the kubelet's plugin watcher
  csi-livenessprobe --csi-address SOCKET
           serve /healthz from the CSI driver's Probe

Every command that dials Temporal also takes --temporal-tls-cert FILE,
--temporal-tls-key FILE, --temporal-tls-ca FILE and --temporal-tls-server-name
NAME: the embedded Temporal takes only mTLS, each certificate's common name
its identity (worker, without them, uses the admin's certificate that
virtflow up wrote in the data directory).
`

// Main runs one virtflow command.
func Main(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "up":
		return up(ctx, args[1:], out)
	case "down":
		return down(ctx, args[1:], out)
	case "status":
		return status(ctx, args[1:], out)
	case "worker":
		return runWorker(ctx, args[1:], out)
	case "prepare":
		return prepare(ctx, args[1:], out)
	case "template":
		return template(ctx, args[1:], out)
	case "virt-launcher":
		return runLauncher(ctx, args[1:])
	case "virt-api":
		return virtapiserver.Main(ctx, args[1:])
	case "virt-controller":
		return virtcontroller.Main(ctx, args[1:])
	case "virt-handler":
		return virthandler.Main(ctx, args[1:])
	case "cdi-apiserver":
		return cdiapiserver.Main(ctx, args[1:])
	case "cdi-controller":
		return cdicontroller.Main(ctx, args[1:])
	case "cdi-uploadproxy":
		return cdiuploadproxy.Main(ctx, args[1:])
	case "hco-operator":
		return hcooperator.Main(ctx, args[1:])
	case "hco-webhook":
		return hcowebhook.Main(ctx, args[1:])
	case "cli-download":
		return clidownload.Main(ctx, args[1:])
	case "control-worker":
		return controlworker.Main(ctx, args[1:])
	case "console":
		return console.Main(ctx, args[1:], web.Assets())
	case "virt-template-validator":
		return templatevalidator.Main(ctx, args[1:])
	case "kubemacpool":
		return kubemacpool.Main(ctx, args[1:])
	case "kubevirt-ipam-controller":
		return kubevirtipamcontroller.Main(ctx, args[1:])
	case "multus":
		return multus.Main(ctx, args[1:])
	case "bridge-marker":
		return bridgemarker.Main(ctx, args[1:])
	case "virt-operator", "cdi-operator", "hostpath-provisioner-operator", "cluster-network-addons-operator", "ssp-operator":
		return componentoperator.Main(ctx, args[0], args[1:])
	case "hostpath-csi":
		return hostpathcsi.Main(ctx, args[1:])
	case "csi-node-registrar":
		return runRegistrar(ctx, args[1:], out)
	case "csi-livenessprobe":
		return runLiveness(ctx, args[1:], out)
	case "-h", "--help", "help":
		fmt.Fprint(out, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

func up(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	o := platform.Options{Out: out}
	fs.StringVar(&o.DataDir, "data-dir", platform.DefaultDataDir(), "state directory (env VIRTFLOW_DATA_DIR)")
	fs.StringVar(&o.ToolsDir, "tools-dir", "tools/k8s", "the tools/k8s module the control-plane binaries are built from")
	fs.StringVar(&o.CacheDir, "cache-dir", binaries.DefaultCacheRoot(), "build cache (env VIRTFLOW_CACHE_DIR)")
	fs.IntVar(&o.APIServerPort, "apiserver-port", 6443, "kube-apiserver port on 127.0.0.1")
	fs.IntVar(&o.EtcdPort, "etcd-port", 2379, "etcd client port on 127.0.0.1 (peer port is the next one)")
	fs.IntVar(&o.TemporalPort, "temporal-port", 7233, "Temporal frontend port on 127.0.0.1")
	fs.IntVar(&o.UIPort, "temporal-ui-port", 8233, "Temporal Web UI port on 127.0.0.1")
	fs.IntVar(&o.ConsolePort, "console-port", 0, "loopback port the web console is relayed to (0: a free one, printed)")
	fs.StringVar(&o.TestGuestDir, "test-guest", "", "push the test guest built by hack/mkguest.sh to the node's registry as registry.virtflow.local/virtflow/test-guest:latest")
	fs.StringVar(&o.LauncherBase, "launcher-base", "", "the launcher image's base root filesystem tarball (built by hack/launcher-base.sh when empty)")
	fs.StringVar(&o.LibguestfsBase, "libguestfs-base", "", "the libguestfs-tools image's root filesystem tarball (built by hack/libguestfs-base.sh when empty)")
	fs.StringVar(&o.CLIDownloads, "cli-downloads", "", "the virtctl builds hco's cli-download serves (built by hack/virtctl-builds.sh when empty)")
	noHC := fs.Bool("no-hyperconverged", false, "do not create the default HyperConverged")
	fs.BoolVar(&o.NoTekton, "no-tekton", false, "do not install Tekton Pipelines on the node")
	fs.IntVar(&o.Nodes, "nodes", 0, "how many nodes to run, each in its own namespaces after the first (0: as many as the last start, one the first time)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.CreateHyperConverged = !*noHC
	o.LogDir = filepath.Join(o.DataDir, "logs")
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return fmt.Errorf("creating data directory: %w", err)
	}
	return platform.Run(ctx, o)
}

func status(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	dataDir := fs.String("data-dir", platform.DefaultDataDir(), "state directory (env VIRTFLOW_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return platform.Status(ctx, *dataDir, out)
}

func prepare(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("prepare", flag.ContinueOnError)
	toolsDir := fs.String("tools-dir", "tools/k8s", "the tools/k8s module the Kubernetes binaries are built from")
	runtimeDir := fs.String("containerd-tools-dir", "tools/containerd", "the tools/containerd module the node's container runtime is built from")
	dnsDir := fs.String("coredns-tools-dir", "tools/coredns", "the tools/coredns module the cluster DNS is built from")
	registryDir := fs.String("registry-tools-dir", "tools/registry", "the tools/registry module the node's OCI registry is built from")
	csiDir := fs.String("csi-tools-dir", "tools/csi", "the tools/csi module the CSI external-provisioner is built from")
	multusDir := fs.String("multus-tools-dir", "tools/multus", "the tools/multus module Multus CNI is built from")
	tektonDir := fs.String("tekton-tools-dir", "tools/tekton", "the tools/tekton module Tekton Pipelines is built from")
	cacheDir := fs.String("cache-dir", binaries.DefaultCacheRoot(), "build cache (env VIRTFLOW_CACHE_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	progress := func(s string) { fmt.Fprintln(out, s) }
	dir, err := binaries.Ensure(ctx, *toolsDir, *cacheDir, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Kubernetes binaries ready in %s\n", dir)
	if dir, err = binaries.EnsureContainerd(ctx, *runtimeDir, *cacheDir, progress); err != nil {
		return err
	}
	fmt.Fprintf(out, "containerd ready in %s\n", dir)
	if dir, err = binaries.EnsureCoreDNS(ctx, *dnsDir, *cacheDir, progress); err != nil {
		return err
	}
	fmt.Fprintf(out, "CoreDNS ready in %s\n", dir)
	if dir, err = binaries.EnsureRegistry(ctx, *registryDir, *cacheDir, progress); err != nil {
		return err
	}
	fmt.Fprintf(out, "registry ready in %s\n", dir)
	if dir, _, err = binaries.EnsureCSIProvisioner(ctx, *csiDir, *cacheDir, progress); err != nil {
		return err
	}
	fmt.Fprintf(out, "csi-provisioner ready in %s\n", dir)
	if dir, _, err = binaries.EnsureMultus(ctx, *multusDir, *cacheDir, progress); err != nil {
		return err
	}
	fmt.Fprintf(out, "Multus ready in %s\n", dir)
	if dir, _, err = binaries.EnsureTekton(ctx, *tektonDir, *cacheDir, progress); err != nil {
		return err
	}
	fmt.Fprintf(out, "Tekton Pipelines ready in %s\n", dir)
	return nil
}

func runLauncher(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("virt-launcher", flag.ContinueOnError)
	dir := fs.String("dir", "", "the launcher directory holding config.json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("virt-launcher needs --dir")
	}
	return launcher.Run(ctx, *dir)
}
