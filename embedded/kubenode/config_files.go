package kubenode

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// containerdConfig is containerd's configuration (version 4, containerd
// 2.x's current one) with the settings this kind of host needs: no
// CAP_SYS_RESOURCE (restrict_oom_score_adj), cgroupfs, Debian's runc, the
// CNI plugins from /usr/lib/cni and the node's writable plugin directory, a local pause image, and nothing read from
// /etc/containerd.
func (n *Node) containerdConfig() string {
	lines := []string{
		"version = 4",
		fmt.Sprintf("root = %q", n.path("containerd")),
		fmt.Sprintf("state = %q", n.statePath("containerd")),
		"imports = []",
		"[plugins.'io.containerd.server.v1.grpc']",
		fmt.Sprintf("  address = %q", n.ContainerdSocket()),
		"[plugins.'io.containerd.server.v1.ttrpc']",
		fmt.Sprintf("  address = %q", n.ContainerdSocket()+".ttrpc"),
		"[plugins.'io.containerd.cri.v1.images']",
		"  snapshotter = 'overlayfs'",
		"[plugins.'io.containerd.cri.v1.images'.registry]",
		fmt.Sprintf("  config_path = %q", n.path("certs.d")),
		"[plugins.'io.containerd.cri.v1.images'.pinned_images]",
		fmt.Sprintf("  sandbox = %q", PauseImage),
		"[plugins.'io.containerd.cri.v1.runtime']",
		"  restrict_oom_score_adj = true",
		// Device nodes a device plugin hands a non-root container (the
		// launcher's /dev/net/tun) belong to the container's user.
		"  device_ownership_from_security_context = true",
		"  netns_mounts_under_state_dir = true",
		"[plugins.'io.containerd.cri.v1.runtime'.containerd]",
		"  default_runtime_name = 'runc'",
		"[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]",
		"  runtime_type = 'io.containerd.runc.v2'",
		"[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]",
		fmt.Sprintf("  BinaryName = %q", n.cfg.Runc),
		"  SystemdCgroup = false",
		"[plugins.'io.containerd.cri.v1.runtime'.cni]",
		// Debian's plugins, then the node's own directory, where the
		// network add-ons install theirs (Multus, cnv-bridge).
		fmt.Sprintf("  bin_dirs = [%q, %q]", n.cfg.CNIBinDir, n.CNIPluginDir()),
		fmt.Sprintf("  conf_dir = %q", n.CNIConfDir()),
		"[plugins.'io.containerd.grpc.v1.cri']",
		"  stream_server_address = '127.0.0.1'",
	}
	return strings.Join(lines, "\n") + "\n"
}

// cniConfig attaches pods to the node bridge; host-local hands out the
// bridge's prefix, the bridge address being every pod's gateway.
func (n *Node) cniConfig() ([]byte, error) {
	prefix := n.cfg.Bridge.Address
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "virtflow",
		"plugins": []any{
			map[string]any{
				"type": "bridge", "bridge": n.cfg.Bridge.Name,
				"isGateway": true, "ipMasq": true, "hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": n.path("cni", "networks"),
					"ranges": []any{[]any{map[string]any{
						"subnet": prefix.Masked().String(), "gateway": prefix.Addr().String(),
					}}},
					"routes": []any{map[string]any{"dst": "0.0.0.0/0"}},
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	return json.MarshalIndent(conf, "", "  ")
}

// kubeletConfig is a KubeletConfiguration for this host: cgroupfs on
// cgroup v1, swap tolerated, webhook authentication and authorization
// against the API server, serving certificates from the cluster CA, and
// no eviction for a disk the node shares with the host.
func (n *Node) kubeletConfig() ([]byte, error) {
	c := n.cfg.Credentials
	conf := map[string]any{
		"apiVersion": "kubelet.config.k8s.io/v1beta1",
		"kind":       "KubeletConfiguration",
		"address":    n.IP().String(),
		"authentication": map[string]any{
			"anonymous": map[string]bool{"enabled": false},
			"webhook":   map[string]bool{"enabled": true},
			"x509":      map[string]string{"clientCAFile": c.CAFile},
		},
		"authorization":            map[string]string{"mode": "Webhook"},
		"tlsCertFile":              c.KubeletCertFile,
		"tlsPrivateKeyFile":        c.KubeletKeyFile,
		"cgroupDriver":             "cgroupfs",
		"failSwapOn":               false,
		"failCgroupV1":             false,
		"containerRuntimeEndpoint": "unix://" + n.ContainerdSocket(),
		"podLogsDir":               n.path("pod-logs"),
		"readOnlyPort":             0,
		"healthzBindAddress":       "127.0.0.1",
		"serializeImagePulls":      false,
		// Pulls come from the node's own registry: the default limit of 5
		// per second would back off the launchers of a mass VM start
		// (each pulls its containerDisk and kernel-boot image) for 10 s.
		"registryPullQPS": 0,
		// Imported images cannot be pulled again: never collect them.
		"imageGCHighThresholdPercent": 100,
		"imageGCLowThresholdPercent":  99,
		// No eviction on disk signals (as kind's nodes): every node's
		// data shares the host's disk, whose free space says nothing of
		// the node; on a host with a few GiB left the kubelet would
		// evict the platform's own pods and taint every node, so that
		// nothing could come back.
		"evictionHard": map[string]string{
			"memory.available": "100Mi", "nodefs.available": "0%",
			"imagefs.available": "0%", "nodefs.inodesFree": "0%",
		},
		"clusterDomain": n.cfg.ClusterDomain,
	}
	if n.cfg.Isolation != nil {
		// Its own cgroup tree: a kubelet removes the pod cgroups it does
		// not know under its root, which would be another node's pods.
		conf["cgroupRoot"] = "/" + n.cfg.Name
	}
	if n.cfg.ClusterDNS != "" {
		conf["clusterDNS"] = []string{n.cfg.ClusterDNS}
	}
	return json.MarshalIndent(conf, "", "  ")
}

// proxyConfig is kube-proxy in nftables mode; its servers listen on the
// node's own addresses only.
func (n *Node) proxyConfig() ([]byte, error) {
	conf := map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"mode":               "nftables",
		"clientConnection":   map[string]string{"kubeconfig": n.cfg.Credentials.ProxyKubeconfig},
		"clusterCIDR":        n.clusterCIDR().String(),
		"hostnameOverride":   n.cfg.Name,
		"bindAddress":        n.IP().String(),
		"healthzBindAddress": n.IP().String() + ":10256",
		"metricsBindAddress": "127.0.0.1:10249",
		// Zero leaves the host's conntrack sysctls as they are.
		"conntrack": map[string]any{"maxPerCore": 0, "min": 0, "tcpEstablishedTimeout": "0s", "tcpCloseWaitTimeout": "0s"},
	}
	return json.MarshalIndent(conf, "", "  ")
}

// writeFile writes data at path, creating the directory.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func (n *Node) clusterCIDR() netip.Prefix {
	if n.cfg.ClusterCIDR.IsValid() {
		return n.cfg.ClusterCIDR
	}
	return n.cfg.Bridge.Address.Masked()
}
