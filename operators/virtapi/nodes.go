package virtapi

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NodeAgents reaches node agents at the node's internal address and the
// daemon port it publishes, with the token it publishes in a Secret.
type NodeAgents struct {
	Client    client.Client
	Namespace string
	// TokenSecret names a node's token Secret.
	TokenSecret func(node string) string
	HTTP        *http.Client
}

// VMICommand sends verb to the launcher of the VMI through its node agent.
func (n *NodeAgents) VMICommand(ctx context.Context, ns, name, verb string) error {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := n.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vmi); err != nil {
		return &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachineinstance.kubevirt.io %q not found", name)}
	}
	if vmi.Status.Phase != kubevirtv1.Running {
		return conflict("VMI is not running")
	}
	paused := hasCondition(vmi, kubevirtv1.VirtualMachineInstancePaused)
	if verb == "pause" && paused {
		return conflict("VMI is already paused")
	}
	if verb == "unpause" && !paused {
		return conflict("VMI is not paused")
	}
	url, token, err := n.endpoint(ctx, vmi.Status.NodeName)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, fmt.Sprintf("%s/v1/namespaces/%s/virtualmachineinstances/%s/%s", url, ns, name, verb), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := n.httpClient().Do(req)
	if err != nil {
		return fmt.Errorf("reaching the node agent of %s: %w", vmi.Status.NodeName, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		msg, _ := io.ReadAll(resp.Body)
		return conflict("%s", strings.TrimSpace(string(msg)))
	}
	return nil
}

func (n *NodeAgents) endpoint(ctx context.Context, nodeName string) (string, string, error) {
	node := &corev1.Node{}
	if err := n.Client.Get(ctx, types.NamespacedName{Name: nodeName}, node); err != nil {
		return "", "", fmt.Errorf("reading node %s: %w", nodeName, err)
	}
	ip := ""
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			ip = a.Address
		}
	}
	port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
	if ip == "" || port == 0 {
		return "", "", fmt.Errorf("node %s does not publish its agent's address yet", nodeName)
	}
	secret := &corev1.Secret{}
	if err := n.Client.Get(ctx, types.NamespacedName{Namespace: n.Namespace, Name: n.TokenSecret(nodeName)}, secret); err != nil {
		return "", "", fmt.Errorf("reading the token of node %s: %w", nodeName, err)
	}
	return "http://" + net.JoinHostPort(ip, strconv.Itoa(int(port))), string(secret.Data["token"]), nil
}

func (n *NodeAgents) httpClient() *http.Client {
	if n.HTTP != nil {
		return n.HTTP
	}
	return &http.Client{Timeout: 15 * time.Second}
}
