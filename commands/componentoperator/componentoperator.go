// Package componentoperator is the command of the component operators'
// Deployments: virt-operator, cdi-operator, hostpath-provisioner-operator,
// cluster-network-addons-operator and ssp-operator. Each reconciles its CR
// into its components' pods, rendered from its own image, and reports the
// CR Available when they are Ready.
package componentoperator

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"

	temporal "go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/operators/cdi/cdi"
	"github.com/virtflow/virtflow/operators/hostpathprovisioner/hostpathprovisioner"
	"github.com/virtflow/virtflow/operators/kubevirt/kubevirt"
	"github.com/virtflow/virtflow/operators/networkaddons/networkaddonsconfig"
	"github.com/virtflow/virtflow/operators/ssp/ssp"
	"github.com/virtflow/virtflow/operators/tekton/customrun"
	"github.com/virtflow/virtflow/tasks"
)

// Names are the operators this command runs, by Deployment name.
var Names = []string{"virt-operator", "cdi-operator", "hostpath-provisioner-operator", "cluster-network-addons-operator", "ssp-operator"}

// PodNameEnv is the operator pod's name, from the downward API: it reads
// its own image there, which its components run too.
const PodNameEnv = "POD_NAME"

// settings are where the components run and what they reach.
type settings struct {
	kubeletRoot, nodeDir, hostRoot, provisionerImage, domainType string
	// temporal is the frontend virt-operator's and cdi-operator's
	// components dial; temporalTLS has them dial with mTLS, checking the
	// frontend's certificate for temporalServerName when set.
	temporal, temporalServerName string
	temporalTLS                  bool
	// own is ssp-operator's own Temporal client, for the durable tasks.
	own *manager.Temporal
	// webhookCertDir, when set, has hostpath-provisioner-operator serve its
	// validating webhook with the certificate there.
	webhookCertDir string
	// tektonTasksImage and tektonTasksDiskVirtImage are the step images
	// ssp-operator names in the Tekton tasks it installs.
	tektonTasksImage, tektonTasksDiskVirtImage string
	// network is what cluster-network-addons-operator puts on the nodes:
	// the Multus and Linux bridge images, and the nodes' CNI directories.
	network networkaddonsconfig.Install
}

// Main runs the operator name until ctx ends.
func Main(ctx context.Context, name string, args []string) error {
	var s settings
	cmd := manager.Command{Name: name, LeaderElectionID: name, Flags: func(fs *flag.FlagSet) { s.flags(fs, name) }}
	return cmd.Run(ctx, args, func(mgr ctrl.Manager, _ temporal.Client) error {
		image, err := ownImage(ctx, mgr.GetAPIReader())
		if err != nil {
			return err
		}
		kind, render, err := s.operator(name, image)
		if err != nil {
			return err
		}
		var deployer workloads.Deployer = &workloads.Workloads{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Render: render, FieldOwner: name}
		if name == "ssp-operator" {
			// Templates are objects, not pods: SSP installs them itself.
			deployer = &ssp.Deployer{Workloads: deployer.(*workloads.Workloads), Tekton: s.tektonManifests}
		}
		r := &workloads.Reconciler{Client: mgr.GetClient(), Kind: kind, Recorder: mgr.GetEventRecorderFor(name), Deployer: deployer}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up %s: %w", name, err)
		}
		if name == "ssp-operator" {
			if err := setupDurableTasks(mgr, s.own); err != nil {
				return err
			}
		}
		if name == "hostpath-provisioner-operator" && s.webhookCertDir != "" {
			return serveHostPathWebhook(mgr, s.webhookCertDir)
		}
		return nil
	})
}

// setupDurableTasks runs the durable Tekton tasks' CustomRun controller in
// ssp-operator. Its Temporal client connects lazily: templates need no
// Temporal, and the controller only once Tekton Pipelines is installed.
func setupDurableTasks(mgr ctrl.Manager, t *manager.Temporal) error {
	opts, err := t.Options()
	if err != nil {
		return err
	}
	tc, err := temporal.NewLazyClient(opts)
	if err != nil {
		return fmt.Errorf("creating the durable tasks' Temporal client for %s: %w", t.Address, err)
	}
	r := &customrun.Reconciler{Client: mgr.GetClient(), Temporal: tc, Recorder: mgr.GetEventRecorderFor("durable-tasks")}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the durable tasks: %w", err)
	}
	return nil
}

// serveHostPathWebhook serves HostPathProvisioner validation, as upstream's
// operator does from its own pod.
func serveHostPathWebhook(mgr ctrl.Manager, certDir string) error {
	build := func(context.Context) (http.Handler, *x509.CertPool, error) {
		mux := http.NewServeMux()
		mux.Handle(hostpathprovisioner.ValidatePath, hostpathprovisioner.Webhook(mgr.GetScheme()))
		return mux, nil, nil
	}
	return manager.ServeTLS(mgr, "hostpath-provisioner-operator webhook", certDir, build)
}

// flags registers the operator's flags: the Temporal ones only for the
// operators that reach Temporal, themselves (ssp-operator) or through
// their components (virt-operator's virt-handler, cdi-operator's
// cdi-deployment).
func (s *settings) flags(fs *flag.FlagSet, name string) {
	switch name {
	case "virt-operator", "cdi-operator":
		fs.StringVar(&s.temporal, "temporal-address", "127.0.0.1:7233", "Temporal frontend host:port the components dial")
		fs.BoolVar(&s.temporalTLS, "temporal-tls", false, "the components dial Temporal with mTLS, each with its own identity's Secret (virtflow-temporal-<identity>) mounted")
		fs.StringVar(&s.temporalServerName, "temporal-tls-server-name", "", "with --temporal-tls: the name the Temporal frontend's certificate must carry; the address's host when empty")
	case "ssp-operator":
		s.own = manager.TemporalFlags(fs)
	case "cluster-network-addons-operator":
		s.networkFlags(fs)
	}
	fs.StringVar(&s.kubeletRoot, "kubelet-root", "/var/lib/kubelet", "the kubelet's root directory on every node")
	fs.StringVar(&s.nodeDir, "node-dir", "/var/lib/virtflow/nodes", "virt-handler's per-node state, a directory per node")
	fs.StringVar(&s.hostRoot, "host-root", "/", "prefix of the hostpath storage pools' paths on every node")
	fs.StringVar(&s.provisionerImage, "csi-provisioner-image", "registry.k8s.io/sig-storage/csi-provisioner:v5.3.0", "kubernetes-csi's external-provisioner")
	fs.StringVar(&s.domainType, "domain-type", "", "virt-handler's guest type (kvm or qemu); detected on each node when empty")
	fs.StringVar(&s.tektonTasksImage, "tekton-tasks-image", "quay.io/virtflow/tekton-tasks:v0.1.0", "ssp-operator: the Tekton tasks' step programs")
	fs.StringVar(&s.tektonTasksDiskVirtImage, "tekton-tasks-disk-virt-image", "quay.io/virtflow/tekton-tasks-disk-virt:v0.1.0", "ssp-operator: the disk-virt tasks' step programs on libguestfs tools")
	fs.StringVar(&s.webhookCertDir, "webhook-cert-dir", "", "hostpath-provisioner-operator: directory of the webhook's tls.crt and tls.key; no webhook when empty")
}

// operator is the kind name reconciles and how it renders its components.
func (s settings) operator(name, image string) (workloads.Kind, workloads.Render, error) {
	ns, v := manager.Namespace(), operands.Version
	switch name {
	case "virt-operator":
		in := kubevirt.Install{Image: image, TemporalAddress: s.temporal, TemporalTLS: s.componentsTLS(), KubeletRoot: s.kubeletRoot, NodeDir: s.nodeDir, HostRoot: s.hostRoot, DomainType: s.domainType}
		return kubevirt.Kind(v), in.Render, nil
	case "cdi-operator":
		in := cdi.Install{Namespace: ns, Image: image, TemporalAddress: s.temporal, TemporalTLS: s.componentsTLS()}
		return cdi.Kind(v), in.Render, nil
	case "hostpath-provisioner-operator":
		in := hostpathprovisioner.Install{Namespace: ns, Image: image, ProvisionerImage: s.provisionerImage, KubeletRoot: s.kubeletRoot, HostRoot: s.hostRoot}
		return hostpathprovisioner.Kind(v), in.Render, nil
	case "cluster-network-addons-operator":
		in := s.network
		in.Namespace, in.Image = ns, image
		return networkaddonsconfig.Kind(v), in.Render, nil
	case "ssp-operator":
		in := ssp.Install{Namespace: ns, Image: image}
		return ssp.Kind(v), in.Render, nil
	}
	return workloads.Kind{}, nil, fmt.Errorf("no operator named %s", name)
}

// networkFlags are cluster-network-addons-operator's: the images its node
// components run and where every node keeps its CNI plugins and
// configuration (the runtime must search the plugin directory).
func (s *settings) networkFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.network.MultusImage, "multus-image", "quay.io/virtflow/multus:v4.2.2", "Multus's thin plugin at "+networkaddonsconfig.MultusBinarySource)
	fs.StringVar(&s.network.LinuxBridgeImage, "linux-bridge-image", "quay.io/virtflow/multus:v4.2.2", "the bridge and tuning CNI plugins under "+networkaddonsconfig.PluginSourceDir+", with a shell")
	fs.StringVar(&s.network.CNIBinDir, "cni-bin-dir", networkaddonsconfig.DefaultCNIBinDir, "the nodes' writable CNI plugin directory")
	fs.StringVar(&s.network.CNIConfDir, "cni-conf-dir", networkaddonsconfig.DefaultCNIConfDir, "the nodes' CNI configuration directory")
}

// componentsTLS is how the components prove themselves to Temporal; nil
// for a plaintext Temporal.
func (s settings) componentsTLS() *workloads.TemporalTLS {
	if !s.temporalTLS {
		return nil
	}
	return &workloads.TemporalTLS{ServerName: s.temporalServerName}
}

// tektonManifests renders the Tekton tasks ssp-operator installs, naming
// the step images this operator was given.
func (s settings) tektonManifests(namespace string) ([]*unstructured.Unstructured, error) {
	return tasks.Manifests(tasks.Images{Tasks: s.tektonTasksImage, DiskVirt: s.tektonTasksDiskVirtImage}, namespace)
}

// ownImage is the image of this pod's first container.
func ownImage(ctx context.Context, r client.Reader) (string, error) {
	name := os.Getenv(PodNameEnv)
	if name == "" {
		return "", errors.New("the operator needs its pod's name in " + PodNameEnv)
	}
	pod := &corev1.Pod{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: manager.Namespace(), Name: name}, pod); err != nil {
		return "", fmt.Errorf("reading the operator's own pod %s: %w", name, err)
	}
	return pod.Spec.Containers[0].Image, nil
}
