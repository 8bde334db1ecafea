//go:build integration

package integration

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/virtctl"
)

// TestASecondNodeJoinsAndGuestsTalkAcrossNodes restarts the shared
// platform with `--nodes 2`: the second node runs in namespaces of its
// own, gets its own address and pod CIDR, and a guest on it is reached
// from the host and from a guest on the first node through the pod
// network. The second node is cordoned afterwards, so the tests after this
// one keep placing their VMs on the first.
func TestASecondNodeJoinsAndGuestsTalkAcrossNodes(t *testing.T) {
	n := onTwoNodes(t)
	ctx := context.Background()

	nodes := &corev1.NodeList{}
	require.NoError(t, n.c.List(ctx, nodes))
	require.Len(t, nodes.Items, 2)
	ips, cidrs := map[string]bool{}, map[string]bool{}
	for _, node := range nodes.Items {
		require.True(t, nodeReady(&node), "%s is Ready", node.Name)
		ips[internalIP(&node)], cidrs[node.Spec.PodCIDR] = true, true
	}
	require.Len(t, ips, 2, "each node has its own address")
	require.Len(t, cidrs, 2, "each node has its own pod CIDR from kube-controller-manager")
	workersMakeTheInfrastructureHighlyAvailable(t, n)

	ns := n.namespace(t)
	g1, ip1 := pinnedGuest(t, n, ns, "g1", "virtflow-node-1")
	g2, ip2 := pinnedGuest(t, n, ns, "g2", "virtflow-node-2")
	defer deleteVM(t, n.c, g1, g2)
	require.Equal(t, "VIRTFLOW-GUEST-HTTP g2", strings.TrimSpace(httpGet(t, "http://"+ip2+"/")), "the host reaches a guest on the second node")
	require.Equal(t, "VIRTFLOW-GUEST-HTTP g1", strings.TrimSpace(httpGet(t, "http://"+ip1+"/")))

	console, err := virtctl.OpenStream(ctx, n.cfg, ns, "g1", "console")
	require.NoError(t, err)
	defer console.Close()
	require.True(t, guestSays(console, "wget -qO- http://"+ip2+"/", "VIRTFLOW-GUEST-HTTP g2", 2*time.Minute),
		"the guest on the first node fetches the guest on the second")
	servicesReachTheSecondNode(t, n, ns, nodes)
}

// servicesReachTheSecondNode: a ClusterIP, a NodePort on the first node's
// address and virt-api's port-forward all reach the guest on the second
// node, with Services upstream's virtctl made.
func servicesReachTheSecondNode(t *testing.T, n *upRun, ns string, nodes *corev1.NodeList) {
	ctx := context.Background()
	u := newUpstreamVirtctl(t, n.kubeconfig, ns)
	u.run(t, "expose", "vm", "g2", "--name", "g2", "--port", "80")
	svc := &corev1.Service{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKey{Namespace: ns, Name: "g2"}, svc))
	require.Equal(t, "VIRTFLOW-GUEST-HTTP g2", strings.TrimSpace(httpGet(t, "http://"+svc.Spec.ClusterIP+"/")))

	u.run(t, "expose", "vm", "g2", "--name", "g2-np", "--port", "8080", "--target-port", "80", "--type", "NodePort")
	np := &corev1.Service{}
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKey{Namespace: ns, Name: "g2-np"}, np))
	first := ""
	for i := range nodes.Items {
		if nodes.Items[i].Name == "virtflow-node-1" {
			first = internalIP(&nodes.Items[i])
		}
	}
	require.Equal(t, "VIRTFLOW-GUEST-HTTP g2", strings.TrimSpace(httpGet(t, fmt.Sprintf("http://%s:%d/", first, np.Spec.Ports[0].NodePort))),
		"the first node's kube-proxy forwards its NodePort to the guest on the second")

	local := freePort(t)
	pf := u.command("port-forward", "vm/g2", fmt.Sprintf("%d:80", local))
	require.NoError(t, pf.Start())
	defer func() { _ = pf.Process.Kill(); _ = pf.Wait() }()
	require.Equal(t, "VIRTFLOW-GUEST-HTTP g2", strings.TrimSpace(httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/", local))))
}

// The two-node tests live in files named to sort after every other: Go
// runs a package's tests in file order, and the restart adds a node (two
// virt-handlers, components spread over both) the single-node tests before
// them do not expect.
var secondNode sync.Once

// onTwoNodes is the shared platform restarted once with `--nodes 2`. The
// second node is cordoned at once: the other tests keep their VMs on the
// first node, whose paths they inspect; the two-node tests place theirs
// with onSecondNode.
func onTwoNodes(t *testing.T) *upRun {
	n := onNode(t)
	secondNode.Do(func() {
		require.NoError(t, n.stop())
		n.args = append(n.args, "--nodes", "2")
		require.NoError(t, n.start(), "up --nodes 2: %s", n.logTail())
		out, err := n.kubectl("cordon", "virtflow-node-2").CombinedOutput()
		require.NoError(t, err, "%s", out)
	})
	return n
}

// pin places the VM on node, the cordoned second node included.
func pin(vm *kubevirtv1.VirtualMachine, node string) {
	spec := &vm.Spec.Template.Spec
	spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: corev1.TaintNodeUnschedulable,
		Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
}

// pinnedGuest runs the test guest on node and returns it and its VMI's
// address; the caller deletes it.
func pinnedGuest(t *testing.T, n *upRun, ns, name, node string) (*kubevirtv1.VirtualMachine, string) {
	vm := testGuestVM(name, kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	pin(vm, node)
	require.NoError(t, n.c.Create(context.Background(), vm))
	key := crclient.ObjectKeyFromObject(vm)
	v := runningVMI(t, n.c, key)
	require.Equal(t, node, v.Status.NodeName)
	return vm, vmiAddress(t, n, key)
}

// guestSays types cmd on the guest's console until want comes back.
func guestSays(console io.ReadWriter, cmd, want string, timeout time.Duration) bool {
	found := make(chan bool, 1)
	go func() { found <- readUntil(console, want, timeout) }()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		_, _ = console.Write([]byte("\n" + cmd + "\n"))
		select {
		case ok := <-found:
			return ok
		case <-tick.C:
		}
	}
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func internalIP(node *corev1.Node) string {
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return fmt.Sprintf("(none on %s)", node.Name)
}

// workersMakeTheInfrastructureHighlyAvailable: both nodes are labelled
// workers, which HCO counts as highly available; the eviction strategy
// the one-node start defaulted to None stays, as upstream keeps one set.
func workersMakeTheInfrastructureHighlyAvailable(t *testing.T, n *upRun) {
	nodes := &corev1.NodeList{}
	require.NoError(t, n.c.List(context.Background(), nodes))
	for _, node := range nodes.Items {
		require.Contains(t, node.Labels, "node-role.kubernetes.io/worker", "%s is a worker", node.Name)
	}
	hc := &hcov1beta1.HyperConverged{}
	require.Eventually(t, func() bool {
		return n.c.Get(context.Background(), hcKey(), hc) == nil && hc.Status.InfrastructureHighlyAvailable != nil && *hc.Status.InfrastructureHighlyAvailable
	}, time.Minute, time.Second, "two workers make the infrastructure highly available")
	require.NotNil(t, hc.Spec.EvictionStrategy)
	require.Equal(t, hcov1beta1.EvictionStrategyNone, *hc.Spec.EvictionStrategy, "defaulted on one node, and kept")
}
