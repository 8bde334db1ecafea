package virtapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// TLS, when set, is virt-api's side of the agents' mutual TLS; every
	// deployed virt-api sets it (only simulated nodes of one test process
	// speak plain HTTP).
	TLS *tls.Config
}

// VMI reads a VMI, answering upstream's 404 when it is missing.
func (n *NodeAgents) VMI(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachineInstance, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := n.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vmi); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachineinstance.kubevirt.io %q not found", name)}
		}
		return nil, internal("unable to retrieve vmi [%s]: %v", name, err)
	}
	return vmi, nil
}

// Command sends verb (with body, when not nil) to the VMI's launcher
// through its node agent.
func (n *NodeAgents) Command(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, verb string, body []byte) error {
	resp, err := n.agentRequest(ctx, vmi, http.MethodPut, verb, body, http.StatusNoContent)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// agentRequest calls the VMI's node agent at .../<suffix>; an answer
// other than want is upstream's internal error carrying the agent's
// message. The caller closes the body.
func (n *NodeAgents) agentRequest(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, method, suffix string, body []byte, want int) (*http.Response, error) {
	url, token, err := n.endpoint(ctx, vmi.Status.NodeName)
	if err != nil {
		return nil, &ActionError{Code: http.StatusBadRequest, Message: err.Error()}
	}
	path := fmt.Sprintf("%s/v1/namespaces/%s/virtualmachineinstances/%s/%s", url, vmi.Namespace, vmi.Name, suffix)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := n.httpClient().Do(req)
	if err != nil {
		return nil, internal("reaching the node agent of %s: %v", vmi.Status.NodeName, err)
	}
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, internal("unexpected return code %d (%s), message: %s", resp.StatusCode, resp.Status, strings.TrimSpace(string(msg)))
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
	scheme := "http://"
	if n.TLS != nil {
		scheme = "https://"
	}
	return scheme + addr, string(secret.Data["token"]), nil
}

func (n *NodeAgents) httpClient() *http.Client {
	if n.HTTP != nil {
		return n.HTTP
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = n.TLS
	return &http.Client{Timeout: 15 * time.Second, Transport: t}
}

// dial connects to an agent's address, over TLS when the agents speak it.
func (n *NodeAgents) dial(ctx context.Context, url string) (net.Conn, error) {
	addr := strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	if n.TLS == nil {
		return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	return (&tls.Dialer{Config: n.TLS}).DialContext(ctx, "tcp", addr)
}
