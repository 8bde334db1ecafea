package platform

import (
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/operators/cdi"
	"github.com/virtflow/virtflow/operators/hostpathprovisioner"
	"github.com/virtflow/virtflow/operators/kubevirt"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// NodeName is the node `virtflow up` runs.
const NodeName = "virtflow-node-1"

// agentConfig is virt-handler on the embedded node: the kubelet runs the
// launcher pods, the agent hands them their VMIs.
func (p *Platform) agentConfig() handler.Config {
	return handler.Config{
		NodeName: NodeName, NodeIP: NodeBridge.Address.Addr().String(), KubeletRoot: p.node.KubeletRoot(),
		// Dir/host keeps the hostpath storage pools.
		Dir: filepath.Join(p.opts.DataDir, "nodes", NodeName),
		UID: launcherpod.User, GID: launcherpod.User, DomainType: handler.DetectDomainType(),
	}
}

// kubeVirtInstall is what virt-operator deploys virt-api, virt-controller and
// virt-handler from on the embedded node: the components image, the
// frontend's relay on the bridge, and the paths the in-process agent used.
// hostPathInstall is what the hostpath-provisioner-operator deploys the
// CSI driver and its sidecars from.
func (p *Platform) hostPathInstall(agent handler.Config) *hostpathprovisioner.Install {
	return &hostpathprovisioner.Install{
		Namespace: Namespace, Image: p.componentsImage, ProvisionerImage: p.csiProvisionerImage,
		KubeletRoot: agent.KubeletRoot, HostRoot: agent.StorageRoot(), ClusterRole: "virtflow",
	}
}

// cdiInstall is what cdi-operator deploys CDI's components from.
func (p *Platform) cdiInstall() *cdi.Install {
	return &cdi.Install{
		Namespace: Namespace, Image: p.componentsImage, TemporalAddress: p.temporalForPods(), ClusterRole: "virtflow",
	}
}

func (p *Platform) kubeVirtInstall(agent handler.Config) *kubevirt.Install {
	return &kubevirt.Install{
		Image: p.componentsImage, TemporalAddress: p.temporalForPods(),
		KubeletRoot: agent.KubeletRoot, NodeDir: filepath.Dir(agent.Dir), ClusterRole: "virtflow",
		DomainType: os.Getenv("VIRTFLOW_DOMAIN_TYPE"),
	}
}
