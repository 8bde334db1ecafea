package platform

import (
	"path/filepath"

	"github.com/virtflow/virtflow/node/handler"
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
