package kubenode

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"
	proxyv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/hostnet"
)

func testNode() *Node {
	return &Node{cfg: withDefaults(Config{
		Name: "n1", DataDir: "/data", ClusterDNS: "10.0.0.10",
		Bridge:      hostnet.Bridge{Name: "vf0", Address: netip.MustParsePrefix("10.244.0.1/24")},
		Credentials: controlplane.NodeCredentials{CAFile: "/pki/ca.crt", ProxyKubeconfig: "/kp"},
	})}
}

func TestContainerdConfigCarriesTheSettingsThisHostNeeds(t *testing.T) {
	var conf map[string]any
	require.NoError(t, toml.Unmarshal([]byte(testNode().containerdConfig()), &conf))
	require.EqualValues(t, 4, conf["version"])
	plugins := conf["plugins"].(map[string]any)
	grpc := plugins["io.containerd.server.v1.grpc"].(map[string]any)
	require.Equal(t, "/run/virtflow/n1/containerd.sock", grpc["address"])
	runtime := plugins["io.containerd.cri.v1.runtime"].(map[string]any)
	require.Equal(t, true, runtime["restrict_oom_score_adj"], "no CAP_SYS_RESOURCE here")
	images := plugins["io.containerd.cri.v1.images"].(map[string]any)
	require.Equal(t, PauseImage, images["pinned_images"].(map[string]any)["sandbox"])
	require.Empty(t, conf["imports"], "nothing from /etc/containerd")
	require.Equal(t, "/data/certs.d", images["registry"].(map[string]any)["config_path"])
	cni := runtime["cni"].(map[string]any)
	require.Equal(t, []any{"/usr/lib/cni", "/data/cni/bin"}, cni["bin_dirs"], "Debian's plugins, then the add-ons' writable directory")
	require.Equal(t, "/data/cni/net.d", cni["conf_dir"])
}

// Strict decoding into the upstream types catches a misspelt field, which
// the kubelet and kube-proxy would only warn about.
func TestKubeletAndProxyConfigurationsDecodeStrictly(t *testing.T) {
	n := testNode()
	data, err := n.kubeletConfig()
	require.NoError(t, err)
	var kc kubeletv1beta1.KubeletConfiguration
	require.NoError(t, yaml.UnmarshalStrict(data, &kc))
	require.Equal(t, "cgroupfs", kc.CgroupDriver)
	require.Equal(t, []string{"10.0.0.10"}, kc.ClusterDNS)
	require.Equal(t, "10.244.0.1", kc.Address)
	require.False(t, *kc.FailSwapOn)
	require.Equal(t, int32(0), *kc.RegistryPullQPS, "pulls from the node's registry are not rate limited")

	data, err = n.proxyConfig()
	require.NoError(t, err)
	var pc proxyv1alpha1.KubeProxyConfiguration
	require.NoError(t, yaml.UnmarshalStrict(data, &pc))
	require.Equal(t, "nftables", string(pc.Mode))
	require.Equal(t, "10.244.0.0/24", pc.ClusterCIDR)
	require.Equal(t, int32(0), *pc.Conntrack.MaxPerCore)
}

func TestCNIConfigHandsOutTheBridgePrefixWithTheBridgeAsGateway(t *testing.T) {
	data, err := testNode().cniConfig()
	require.NoError(t, err)
	require.Contains(t, string(data), `"subnet": "10.244.0.0/24"`)
	require.Contains(t, string(data), `"gateway": "10.244.0.1"`)
	require.Contains(t, string(data), `"bridge": "vf0"`)
}

func TestOnlyATableWithoutRulesIsRuleless(t *testing.T) {
	empty := "table ip filter {\n\tchain INPUT {\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n}\n"
	require.True(t, ruleless(empty))
	withRule := "table ip nat {\n\tchain POSTROUTING {\n\t\ttype nat hook postrouting priority srcnat; policy accept;\n\t\tip saddr 10.0.0.2 masquerade\n\t}\n}\n"
	require.False(t, ruleless(withRule))
}

func TestMountPointsAreUnescaped(t *testing.T) {
	require.Equal(t, "/var/lib/a b\\c", unescapeMount(`/var/lib/a\040b\134c`))
}

func TestASecondNodeOfTheSameNameIsRefused(t *testing.T) {
	dir := t.TempDir()
	first := &Node{cfg: withDefaults(Config{Name: "n1", StateDir: dir + "/n1"})}
	require.NoError(t, first.takeLock())
	second := &Node{cfg: withDefaults(Config{Name: "n1", StateDir: dir + "/n1"})}
	require.ErrorContains(t, second.takeLock(), "node n1 is already running on this machine")
	require.NoError(t, first.Stop())
	require.NoError(t, second.takeLock(), "free once the first stops")
}

func TestContainerdReachesTheNodeRegistryByNameAndAddressOverHTTP(t *testing.T) {
	n := testNode()
	n.cfg.DataDir = t.TempDir()
	require.NoError(t, n.writeRegistryHosts())
	for _, host := range []string{"registry.virtflow.local", "10.244.0.1:5000"} {
		data, err := os.ReadFile(filepath.Join(n.cfg.DataDir, "certs.d", host, "hosts.toml"))
		require.NoError(t, err)
		var conf map[string]any
		require.NoError(t, toml.Unmarshal(data, &conf))
		require.Equal(t, "http://10.244.0.1:5000", conf["server"])
		entry := conf["host"].(map[string]any)["http://10.244.0.1:5000"].(map[string]any)
		require.Equal(t, []any{"pull", "resolve"}, entry["capabilities"], "containerd never pushes there")
	}
	require.NoFileExists(t, filepath.Join(n.cfg.DataDir, "certs.d", "docker.io", "hosts.toml"), "no outside registry is mirrored to the node's")
}

func TestOnlyOurNetworksPodChainsAreSwept(t *testing.T) {
	ours := `-A CNI-0b0f4cecd3bf3061d2e91aea ! -d 224.0.0.0/4 -m comment --comment "name: \"virtflow\" id: \"1969\"" -j MASQUERADE`
	theirs := `-A CNI-aaaa ! -d 224.0.0.0/4 -m comment --comment "name: \"podman\" id: \"1969\"" -j MASQUERADE`
	m := cniChain.FindStringSubmatch(ours)
	require.Equal(t, "CNI-0b0f4cecd3bf3061d2e91aea", m[1])
	require.Nil(t, cniChain.FindStringSubmatch(theirs))
}

// A data directory deep enough to push plugin sockets past the address
// limit is refused up front, with the way out.
func TestAKubeletRootTooDeepForPluginSocketsIsRefused(t *testing.T) {
	require.NoError(t, checkSocketRoom("/var/lib/virtflow/node/kubelet"))
	err := checkSocketRoom("/tmp/virtflow-integration-1222119031/up-data/node/kubelet")
	require.ErrorContains(t, err, "choose a shorter data directory")
}
