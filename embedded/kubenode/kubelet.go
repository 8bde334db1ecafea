package kubenode

import (
	"fmt"
	"os"
	"path/filepath"
)

func (n *Node) writeNetworkConfig() error {
	cni, err := n.cniConfig()
	if err != nil {
		return fmt.Errorf("rendering CNI configuration: %w", err)
	}
	// The add-ons' plugin directory exists before any of them runs.
	if err := os.MkdirAll(n.CNIPluginDir(), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", n.CNIPluginDir(), err)
	}
	return writeFile(filepath.Join(n.CNIConfDir(), "10-virtflow.conflist"), cni)
}

func (n *Node) startKubelet() error {
	conf, err := n.kubeletConfig()
	if err != nil {
		return fmt.Errorf("rendering kubelet configuration: %w", err)
	}
	if err := writeFile(n.path("kubelet.yaml"), conf); err != nil {
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
	if err := writeFile(n.path("kube-proxy.yaml"), conf); err != nil {
		return err
	}
	return n.run("kube-proxy", filepath.Join(n.cfg.KubeBinDir, "kube-proxy"), []string{"--config=" + n.path("kube-proxy.yaml"), "--v=1"})
}
