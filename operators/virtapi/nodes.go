package virtapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
	// Client reads VMIs and the agents' Secrets; uncached, so that an
	// agent that moved is found at its new address at once.
	Client    client.Reader
	Namespace string
	// TokenSecret names a node's token Secret.
	TokenSecret func(node string) string
	HTTP        *http.Client
}

// VMICommand sends verb to the launcher of the VMI through its node agent.
func (n *NodeAgents) VMICommand(ctx context.Context, ns, name, verb string) error {
	vmi, err := n.runningVMI(ctx, ns, name)
	if err != nil {
		return err
	}
	paused := hasCondition(vmi, kubevirtv1.VirtualMachineInstancePaused)
	if verb == "pause" && paused {
		return conflict("VMI is already paused")
	}
	if verb == "unpause" && !paused {
		return conflict("VMI is not paused")
	}
	resp, err := n.agentRequest(ctx, vmi, http.MethodPut, verb, http.StatusNoContent)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// runningVMI reads the VMI, refusing as upstream does when it is missing
// or not running.
func (n *NodeAgents) runningVMI(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachineInstance, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := n.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vmi); err != nil {
		return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachineinstance.kubevirt.io %q not found", name)}
	}
	if vmi.Status.Phase != kubevirtv1.Running {
		return nil, conflict("VMI is not running")
	}
	return vmi, nil
}

// agentRequest calls the VMI's node agent at .../<suffix>; an answer
// other than want is a conflict carrying the agent's message. The caller
// closes the body.
func (n *NodeAgents) agentRequest(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, method, suffix string, want int) (*http.Response, error) {
	url, token, err := n.endpoint(ctx, vmi.Status.NodeName)
	if err != nil {
		return nil, err
	}
	path := fmt.Sprintf("%s/v1/namespaces/%s/virtualmachineinstances/%s/%s", url, vmi.Namespace, vmi.Name, suffix)
	req, err := http.NewRequestWithContext(ctx, method, path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := n.httpClient().Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching the node agent of %s: %w", vmi.Status.NodeName, err)
	}
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, conflict("%s", strings.TrimSpace(string(msg)))
	}
	return resp, nil
}

func (n *NodeAgents) endpoint(ctx context.Context, nodeName string) (string, string, error) {
	secret := &corev1.Secret{}
	if err := n.Client.Get(ctx, types.NamespacedName{Namespace: n.Namespace, Name: n.TokenSecret(nodeName)}, secret); err != nil {
		return "", "", fmt.Errorf("reading the token of node %s: %w", nodeName, err)
	}
	addr := string(secret.Data["address"])
	if addr == "" {
		return "", "", fmt.Errorf("node %s does not publish its agent's address yet", nodeName)
	}
	return "http://" + addr, string(secret.Data["token"]), nil
}

func (n *NodeAgents) httpClient() *http.Client {
	if n.HTTP != nil {
		return n.HTTP
	}
	return &http.Client{Timeout: 15 * time.Second}
}
