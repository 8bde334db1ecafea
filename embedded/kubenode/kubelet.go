package kubenode

import (
	"fmt"
	"os"
	"path/filepath"
)

// ownNetworkConf is the node's own pod network's CNI configuration.
const ownNetworkConf = "10-virtflow.conflist"

func (n *Node) writeNetworkConfig() error {
	cni, err := n.cniConfig()
	if err != nil {
		return fmt.Errorf("rendering CNI configuration: %w", err)
	}
	return writeFile(n.hostPath("cni", "net.d", ownNetworkConf), cni)
}

// makeCNIPluginDir creates the add-ons' plugin directory before any of
// them runs.
func (n *Node) makeCNIPluginDir() error {
	dir := n.hostPath("cni", "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	return nil
}

func (n *Node) startKubelet() error {
	conf, err := n.kubeletConfig()
	if err != nil {
		return fmt.Errorf("rendering kubelet configuration: %w", err)
	}
	if err := writeFile(n.hostPath("kubelet.yaml"), conf); err != nil {
		return err
	}
	args := []string{
		"--config=" + n.path("kubelet.yaml"),
		"--kubeconfig=" + n.cfg.Credentials.KubeletKubeconfig,
		"--root-dir=" + n.path("kubelet"),
		"--node-ip=" + n.IP().String(),
		"--hostname-override=" + n.cfg.Name,
		"--v=1",
	}
	return n.run("kubelet", filepath.Join(n.cfg.KubeBinDir, "kubelet"), args)
}

func (n *Node) startProxy() error {
	conf, err := n.proxyConfig()
	if err != nil {
		return fmt.Errorf("rendering kube-proxy configuration: %w", err)
	}
	if err := writeFile(n.hostPath("kube-proxy.yaml"), conf); err != nil {
		return err
	}
	return n.run("kube-proxy", filepath.Join(n.cfg.KubeBinDir, "kube-proxy"), []string{"--config=" + n.path("kube-proxy.yaml"), "--v=1"})
}
