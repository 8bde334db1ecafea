//go:build integration

package integration

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/virtctl"
)

// TestGuestsOnALinuxBridgeNetworkReachEachOtherAcrossNodes plugs a bridge
// br1 into each node, sharing the host's L2 as a second physical network:
// bridge-marker publishes it, two VMs on a NetworkAttachmentDefinition of
// br1 on different nodes get pool MACs and reach each other there, and a
// VM asking for a bridge no node has stays Pending with the scheduler's
// reason.
func TestGuestsOnALinuxBridgeNetworkReachEachOtherAcrossNodes(t *testing.T) {
	n := onTwoNodes(t)
	ctx := context.Background()
	plugBridge(t, "br1", "virtflow-node-2")
	require.Eventually(t, func() bool {
		nodes := &corev1.NodeList{}
		if n.c.List(ctx, nodes) != nil {
			return false
		}
		marked := 0
		for _, node := range nodes.Items {
			if q, ok := node.Status.Allocatable["bridge.network.kubevirt.io/br1"]; ok && q.Value() > 0 {
				marked++
			}
		}
		return marked == 2
	}, 2*time.Minute, time.Second, "bridge-marker publishes br1 on both nodes")

	ns := n.namespace(t)
	createNAD(t, n, ns, "br1-net", "br1")
	createNAD(t, n, ns, "nowhere-net", "br-nowhere")
	a, macA := bridgedGuest(t, n, ns, "a", "virtflow-node-1", "br1-net")
	b, macB := bridgedGuest(t, n, ns, "b", "virtflow-node-2", "br1-net")
	vm := testGuestVM("stranded", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	defer deleteVM(t, n.c, a, b, vm)
	require.NotEqual(t, macA, macB)

	console, err := virtctl.OpenStream(ctx, n.cfg, ns, "a", "console")
	require.NoError(t, err)
	defer console.Close()
	target := linkLocal(t, macB)
	require.True(t, guestSays(console, "ping6 -c 2 -I eth1 "+target, "bytes from "+target, 2*time.Minute),
		"guest a reaches guest b on br1, across the nodes")

	onSecondary(vm, "nowhere-net")
	require.NoError(t, n.c.Create(ctx, vm))
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		if n.c.List(ctx, pods, crclient.InNamespace(ns), crclient.MatchingLabels{"vm.kubevirt.io/name": "stranded"}) != nil || len(pods.Items) != 1 {
			return false
		}
		for _, c := range pods.Items[0].Status.Conditions {
			if c.Type == corev1.PodScheduled && strings.Contains(c.Message, "Insufficient bridge.network.kubevirt.io/br-nowhere") {
				return true
			}
		}
		return false
	}, time.Minute, time.Second, "the scheduler says no node has the bridge")
}

// plugBridge makes a bridge on the first node (the host) and on node, and
// links the two: the nodes' second physical network.
func plugBridge(t *testing.T, bridge, node string) {
	host := "vf" + bridge + "-up"
	steps := [][]string{
		{"link", "add", bridge, "type", "bridge"}, {"link", "set", bridge, "up"},
		{"-n", node, "link", "add", bridge, "type", "bridge"}, {"-n", node, "link", "set", bridge, "up"},
		{"link", "add", host, "type", "veth", "peer", "name", "uplink", "netns", node},
		{"link", "set", host, "master", bridge, "up"},
		{"-n", node, "link", "set", "uplink", "master", bridge, "up"},
	}
	for _, s := range steps {
		out, err := exec.Command("ip", s...).CombinedOutput()
		require.NoError(t, err, "ip %v: %s", s, out)
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", host).Run()
		_ = exec.Command("ip", "link", "del", bridge).Run()
		_ = exec.Command("ip", "-n", node, "link", "del", bridge).Run()
	})
}

// createNAD is a cnv-bridge NetworkAttachmentDefinition on bridge, with
// bridge-marker's resource so its pods go where the bridge is.
func createNAD(t *testing.T, n *upRun, ns, name, bridge string) {
	nad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
		"metadata": map[string]any{"namespace": ns, "name": name,
			"annotations": map[string]any{"k8s.v1.cni.cncf.io/resourceName": "bridge.network.kubevirt.io/" + bridge}},
		"spec": map[string]any{"config": fmt.Sprintf(`{"cniVersion":"0.3.1","name":%q,"type":"cnv-bridge","bridge":%q,"macspoofchk":true}`, name, bridge)},
	}}
	require.NoError(t, n.c.Create(context.Background(), nad))
}

// onSecondary adds a bridge-bound interface on the network nad.
func onSecondary(vm *kubevirtv1.VirtualMachine, nad string) {
	spec := &vm.Spec.Template.Spec
	spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{
		{Name: "default", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}},
		{Name: "br", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}},
	}
	spec.Networks = []kubevirtv1.Network{
		{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}},
		{Name: "br", NetworkSource: kubevirtv1.NetworkSource{Multus: &kubevirtv1.MultusNetwork{NetworkName: nad}}},
	}
}

// bridgedGuest runs the test guest on node with a second interface on nad
// and returns it and that interface's MAC, which kubemacpool gave; the
// caller deletes it.
func bridgedGuest(t *testing.T, n *upRun, ns, name, node, nad string) (*kubevirtv1.VirtualMachine, string) {
	vm := testGuestVM(name, kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	pin(vm, node)
	onSecondary(vm, nad)
	require.NoError(t, n.c.Create(context.Background(), vm))
	got := &kubevirtv1.VirtualMachine{}
	require.NoError(t, n.c.Get(context.Background(), crclient.ObjectKeyFromObject(vm), got))
	mac := got.Spec.Template.Spec.Domain.Devices.Interfaces[1].MacAddress
	require.NotEmpty(t, mac, "kubemacpool gave the secondary interface its MAC")
	runningVMI(t, n.c, crclient.ObjectKeyFromObject(vm))
	return vm, mac
}

// linkLocal is the IPv6 link-local address a guest derives from mac.
func linkLocal(t *testing.T, mac string) string {
	hw, err := net.ParseMAC(mac)
	require.NoError(t, err)
	b := []byte{hw[0] ^ 0x02, hw[1], hw[2], 0xff, 0xfe, hw[3], hw[4], hw[5]}
	ip := net.IP(append([]byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0}, b...))
	return ip.String()
}
