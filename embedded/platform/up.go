package platform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/hostnet"
	"github.com/virtflow/virtflow/embedded/kubenode"
	"github.com/virtflow/virtflow/embedded/temporal"
	"github.com/virtflow/virtflow/worker"
)

// Platform is a running embedded virtflow.
type Platform struct {
	opts     Options
	log      io.Writer
	cp       *controlplane.ControlPlane
	temporal *temporal.Server
	node     *kubenode.Node
	// nodeCfg is the first node's configuration, which extra nodes copy.
	nodeCfg kubenode.Config
	// extra are the nodes after the first, each in its own namespaces.
	extra []*kubenode.Node
	// temporalBridge relays the frontend, which like all of Temporal's
	// services listens on 127.0.0.1, to the node's bridge for the pods.
	// Temporal's internal ports stay off the bridge, where the host's
	// connections to pods take their ephemeral ports from the same range.
	temporalBridge *hostnet.Forwarder
	// consoleRelay relays a loopback port to the web console's Service.
	consoleRelay *hostnet.Forwarder
	// consoleCA is the CA file of the console's certificate.
	consoleCA       string
	componentsImage string
	// cliDownloadsImage is the components image with the virtctl builds.
	cliDownloadsImage string
	// csiProvisionerImage is external-provisioner's image on the node.
	csiProvisionerImage string
	// tektonTasksImage and tektonTasksDiskVirtImage are the Tekton tasks'
	// step images on the node.
	tektonTasksImage, tektonTasksDiskVirtImage string
	// multusImage is Multus's and the Linux bridge plugins' image on the
	// node.
	multusImage string
}

// Start brings everything up and returns once the operators run; the
// HyperConverged may still be installing.
func Start(ctx context.Context, opts Options) (*Platform, error) {
	p := &Platform{opts: opts}
	if err := p.start(ctx); err != nil {
		return nil, errors.Join(err, p.Stop())
	}
	return p, nil
}

func (p *Platform) start(ctx context.Context) error {
	o := p.opts
	if o.LogDir != "" {
		if err := os.MkdirAll(o.LogDir, 0o755); err != nil {
			return fmt.Errorf("creating log directory: %w", err)
		}
		f, err := os.OpenFile(p.logFile("virtflow.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("opening log: %w", err)
		}
		p.log = f
	}
	// Clients made before the operators start log through it too; unset,
	// controller-runtime prints a stack trace to say so.
	logOut := p.log
	if logOut == nil {
		logOut = os.Stderr
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logOut)))
	if os.Geteuid() != 0 {
		return errors.New("virtflow up needs root: it runs a Kubernetes node, whose containerd and runc create namespaces, cgroups and mounts for pods and whose kubelet and kube-proxy program the host's network")
	}
	tools, err := startTools(ctx, o, p.say)
	if err != nil {
		return err
	}
	if _, err := NodeBridge.Ensure(ctx); err != nil {
		return err
	}
	p.say("starting Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler) on " + NodeBridge.Address.Addr().String())
	p.cp, err = controlplane.Start(ctx, controlplane.Config{
		DataDir: filepath.Join(o.DataDir, "kubernetes"), BinDir: tools.kube,
		APIServerPort: o.APIServerPort, EtcdPort: o.EtcdPort,
		Address: NodeBridge.Address.Addr().String(), ServiceClusterIPRange: ServiceCIDR, ClusterCIDR: ClusterCIDR.String(),
	})
	if err != nil {
		return err
	}
	if err := p.startTemporal(ctx); err != nil {
		return err
	}
	if err := p.startNode(ctx, tools); err != nil {
		return err
	}
	return p.startServices(ctx)
}

// startTemporal starts the Temporal server and its Web UI, relays the
// frontend onto the bridge and waits until it answers.
func (p *Platform) startTemporal(ctx context.Context) error {
	o := p.opts
	p.say("starting Temporal server and Web UI")
	// The frontend's certificate names the bridge's address, where the
	// pods reach it.
	var err error
	p.temporal, err = temporal.Start(temporal.Config{
		DatabaseFile: filepath.Join(o.DataDir, "temporal", "temporal.db"),
		FrontendPort: o.TemporalPort, UIPort: o.UIPort, Namespaces: []string{worker.DefaultNamespace},
		LogFile: p.logFile("temporal.log"),
		PKIDir:  filepath.Join(o.DataDir, "temporal", "pki"), Hosts: []string{NodeBridge.Address.Addr().String()},
	})
	if err != nil {
		return err
	}
	if p.temporalBridge, err = hostnet.Forward(p.temporalForPods(), p.temporal.FrontendAddress()); err != nil {
		return err
	}
	return p.temporal.WaitReady(ctx, worker.DefaultNamespace)
}

// startServices hands the pods their Temporal certificates, applies
// deploy/embedded (every operator, hco-webhook, cli-download and the
// worker, as pods), then creates the default storage and HyperConverged.
func (p *Platform) startServices(ctx context.Context) error {
	c, err := newKubeClient(p.cp.RESTConfig())
	if err != nil {
		return err
	}
	if err := writeTemporalSecrets(ctx, c, p.temporal.PKI()); err != nil {
		return err
	}
	if err := p.applyEmbeddedOverlay(ctx, p.agentConfig()); err != nil {
		return err
	}
	creds, err := p.ensureConsoleTLS(ctx, c)
	if err != nil {
		return err
	}
	p.consoleCA = creds.CAFile
	if !p.opts.CreateHyperConverged {
		return nil
	}
	// hostpath-provisioner-operator's pod validates the HostPathProvisioner.
	if err := whenAdmitted(ctx, func() error { return EnsureHostpathStorage(ctx, c) }); err != nil {
		return err
	}
	return ensureHyperConvergedWhenAdmitted(ctx, p.cp.RESTConfig())
}

// KubeconfigPath is the admin kubeconfig.
func (p *Platform) KubeconfigPath() string { return p.cp.KubeconfigPath() }

// TemporalAddress is the Temporal frontend host:port.
func (p *Platform) TemporalAddress() string { return p.temporal.FrontendAddress() }

// temporalForPods is the frontend's port on the node's bridge.
func (p *Platform) temporalForPods() string {
	_, port, _ := net.SplitHostPort(p.temporal.FrontendAddress())
	return net.JoinHostPort(NodeBridge.Address.Addr().String(), port)
}

// TemporalUI is the Web UI URL.
func (p *Platform) TemporalUI() string { return p.temporal.UIAddress() }

// Stop stops everything in reverse order; it is safe on a partial start.
func (p *Platform) Stop() error {
	var errs []error
	// The node stops with its pods left running: VMs outlive the platform,
	// and the next start picks them up (virtflow down --purge removes them).
	for i := len(p.extra) - 1; i >= 0; i-- {
		errs = append(errs, p.extra[i].Stop())
	}
	if p.node != nil {
		errs = append(errs, p.node.Stop())
	}
	if p.temporalBridge != nil {
		errs = append(errs, p.temporalBridge.Close())
	}
	if p.consoleRelay != nil {
		errs = append(errs, p.consoleRelay.Close())
	}
	if p.temporal != nil {
		errs = append(errs, p.temporal.Stop())
	}
	if p.cp != nil {
		errs = append(errs, p.cp.Stop())
	}
	return errors.Join(errs...)
}

func (p *Platform) logFile(name string) string {
	if p.opts.LogDir == "" {
		return ""
	}
	return filepath.Join(p.opts.LogDir, name)
}

func (p *Platform) say(msg string) {
	if p.opts.Out != nil {
		fmt.Fprintf(p.opts.Out, "%s  %s\n", time.Now().Format("15:04:05"), msg)
	}
}

// startTools are the cached builds a start needs: the node's, the CSI
// external-provisioner, Multus and, unless left out, Tekton.
func startTools(ctx context.Context, o Options, say func(string)) (nodeTools, error) {
	tools, err := ensureNodeTools(ctx, o, say)
	if err != nil {
		return tools, err
	}
	if err := tools.ensureCSIProvisioner(ctx, o, say); err != nil {
		return tools, err
	}
	if err := tools.ensureMultus(ctx, o, say); err != nil {
		return tools, err
	}
	if o.NoTekton {
		return tools, nil
	}
	return tools, tools.ensureTekton(ctx, o, say)
}
