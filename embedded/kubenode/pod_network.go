package kubenode

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/virtflow/virtflow/embedded/hostnet"
)

// BridgeName is every node's pod bridge.
const BridgeName = "virtflow0"

// WaitPodCIDR waits for kube-controller-manager's node IPAM to give the
// registered Node its pod CIDR.
func (n *Node) WaitPodCIDR(ctx context.Context, cs kubernetes.Interface) (netip.Prefix, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		node, err := cs.CoreV1().Nodes().Get(ctx, n.cfg.Name, metav1.GetOptions{})
		if err == nil && node.Spec.PodCIDR != "" {
			return netip.ParsePrefix(node.Spec.PodCIDR)
		}
		if err := n.Healthy(); err != nil {
			return netip.Prefix{}, err
		}
		select {
		case <-ctx.Done():
			return netip.Prefix{}, fmt.Errorf("node %s got no pod CIDR from kube-controller-manager: %w", n.cfg.Name, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// SetPodNetwork gives an isolated node its pod bridge, whose address is the
// first of podCIDR and the pods' gateway, and its CNI configuration: the
// kubelet turns Ready then.
func (n *Node) SetPodNetwork(ctx context.Context, podCIDR netip.Prefix) error {
	first := podCIDR.Masked().Addr().Next()
	n.cfg.Bridge = hostnet.Bridge{Name: BridgeName, Address: netip.PrefixFrom(first, podCIDR.Bits())}
	if iso := n.cfg.Isolation; iso != nil {
		n.cfg.Bridge.Netns = iso.Netns
	}
	if _, err := n.cfg.Bridge.Ensure(ctx); err != nil {
		return fmt.Errorf("creating the pod bridge of node %s: %w", n.cfg.Name, err)
	}
	return n.writeNetworkConfig()
}
