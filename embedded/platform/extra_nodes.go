package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/virtflow/virtflow/embedded/hostnet"
	"github.com/virtflow/virtflow/embedded/kubenode"
)

// ClusterCIDR holds every node's pod network; kube-controller-manager
// gives each node a /24 of it, the first to the first node.
var ClusterCIDR = netip.MustParsePrefix("10.244.0.0/16")

// PhysBridge is the host bridge that plays the physical network the extra
// nodes share; the host (and so the first node) is its gateway.
var PhysBridge = hostnet.Bridge{Name: "virtflow-phys", Address: netip.MustParsePrefix("10.250.0.1/24")}

// nodeName is the k-th node's name (from 1).
func nodeName(k int) string { return "virtflow-node-" + strconv.Itoa(k) }

// extraNodeIP is the k-th node's address on the physical bridge (k ≥ 2).
func extraNodeIP(k int) netip.Prefix {
	base := PhysBridge.Address.Masked().Addr().As4()
	base[3] = byte(10 + k)
	return netip.PrefixFrom(netip.AddrFrom4(base), PhysBridge.Address.Bits())
}

// nodeLink is the k-th node's namespace and link.
func nodeLink(k int) hostnet.NodeLink {
	return hostnet.NodeLink{Netns: nodeName(k), HostSide: "vfn" + strconv.Itoa(k), Bridge: PhysBridge.Name,
		Address: extraNodeIP(k), Gateway: PhysBridge.Address.Addr()}
}

// extraNodeConfig is the k-th node (k ≥ 2): its own namespaces and data
// directory, which it sees where the first node's is, so DaemonSets find
// every node's directories at the same paths.
func extraNodeConfig(o Options, t nodeTools, k int) kubenode.Config {
	cfg := nodeConfig(o, t)
	cfg.Name = nodeName(k)
	cfg.NodeIP = extraNodeIP(k).Addr()
	cfg.RegistryIP = NodeBridge.Address.Addr()
	cfg.ClusterCIDR = ClusterCIDR
	cfg.Bridge = hostnet.Bridge{}
	cfg.Isolation = &kubenode.Isolation{Netns: nodeName(k), HostDataDir: filepath.Join(o.DataDir, "node-"+strconv.Itoa(k))}
	return cfg
}

// nodeCountFile records how many nodes the last start ran.
func nodeCountFile(o Options) string { return filepath.Join(o.DataDir, "nodes.json") }

// nodeCount is the number of nodes to run: the option, else the recorded
// one, else one; the answer is recorded for the next start and the purge.
func nodeCount(o Options) (int, error) {
	n := o.Nodes
	if n == 0 {
		n = recordedNodes(o)
	}
	data, err := json.Marshal(map[string]int{"nodes": n})
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(nodeCountFile(o), data, 0o644); err != nil {
		return 0, fmt.Errorf("recording the node count: %w", err)
	}
	return n, nil
}

// recordedNodes is what the last start recorded, one when nothing was.
func recordedNodes(o Options) int {
	var rec struct{ Nodes int }
	if data, err := os.ReadFile(nodeCountFile(o)); err == nil && json.Unmarshal(data, &rec) == nil && rec.Nodes > 0 {
		return rec.Nodes
	}
	return 1
}

// startExtraNodes starts nodes 2..count, one after the other: each gets
// its namespace and link, its pod CIDR from kube-controller-manager, its
// bridge and the host's route to its pods.
func (p *Platform) startExtraNodes(ctx context.Context, t nodeTools, count int, cs kubernetes.Interface) error {
	if count < 2 {
		return nil
	}
	if _, err := PhysBridge.Ensure(ctx); err != nil {
		return fmt.Errorf("creating the nodes' network %s: %w", PhysBridge.Name, err)
	}
	for k := 2; k <= count; k++ {
		if err := p.startExtraNode(ctx, t, k, cs); err != nil {
			return err
		}
	}
	return nil
}

func (p *Platform) startExtraNode(ctx context.Context, t nodeTools, k int, cs kubernetes.Interface) error {
	if err := nodeLink(k).Ensure(ctx); err != nil {
		return fmt.Errorf("connecting node %s: %w", nodeName(k), err)
	}
	cfg := extraNodeConfig(p.opts, t, k)
	var err error
	if cfg.Credentials, err = p.cp.NodeCredentials(cfg.Name, cfg.NodeIP.AsSlice()); err != nil {
		return err
	}
	cfg.PauseBinary, cfg.ClusterDNS, cfg.Images = p.nodeCfg.PauseBinary, p.nodeCfg.ClusterDNS, p.nodeCfg.Images
	p.say(fmt.Sprintf("starting node %s (containerd, kubelet, kube-proxy) in its own namespaces on %s %s", cfg.Name, PhysBridge.Name, cfg.NodeIP))
	started := time.Now()
	n, err := kubenode.Start(ctx, cfg)
	if err != nil {
		return err
	}
	p.extra = append(p.extra, n)
	podCIDR, err := n.WaitPodCIDR(ctx, cs)
	if err != nil {
		return err
	}
	if err := n.SetPodNetwork(ctx, podCIDR); err != nil {
		return err
	}
	if err := hostnet.Route(ctx, podCIDR, cfg.NodeIP); err != nil {
		return fmt.Errorf("routing %s to node %s: %w", podCIDR, cfg.Name, err)
	}
	if err := n.WaitReady(ctx, cs); err != nil {
		return err
	}
	if err := n.LabelWorker(ctx, cs); err != nil {
		return err
	}
	p.sayNodeReady(cfg.Name, started)
	return nil
}

// sayNodeReady tells how long a node took from its start to Ready; the
// benchmarks read it.
func (p *Platform) sayNodeReady(name string, started time.Time) {
	p.say(fmt.Sprintf("node %s Ready after %s", name, time.Since(started).Round(10*time.Millisecond)))
}

// purgeExtraNodes removes nodes 2..count and what connected them.
func purgeExtraNodes(ctx context.Context, o Options, t nodeTools, count int) error {
	var errs []error
	if count >= 2 {
		if _, err := PhysBridge.Ensure(ctx); err != nil {
			return err
		}
	}
	for k := count; k >= 2; k-- {
		// containerd runs in the node's namespaces to find its pods.
		if err := nodeLink(k).Ensure(ctx); err != nil {
			errs = append(errs, err)
			continue
		}
		cfg := extraNodeConfig(o, t, k)
		errs = append(errs, kubenode.PurgeStopped(ctx, cfg), nodeLink(k).Remove(ctx))
	}
	if count >= 2 {
		// The routes to the nodes' pods go with the bridge they lead to.
		errs = append(errs, PhysBridge.Remove(ctx))
	}
	return errors.Join(errs...)
}
