// Package subresources starts and stops VMs as `virtctl start` and `virtctl
// stop` do: a PUT with an empty options body on the VM's start or stop
// subresource of virt-api's subresources.kubevirt.io API, through the API
// server. virt-api picks between the run strategy and a state-change
// request, and the Tasks' roles grant those subresources.
package subresources

import (
	"context"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Client sends the requests.
type Client struct{ rest rest.Interface }

// NewClient is a Client of the API server cfg reaches.
func NewClient(cfg *rest.Config) (Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = nil
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return Client{}, err
	}
	return Client{rest: c}, nil
}

// Start asks virt-api to start the VM.
func (c Client) Start(ctx context.Context, namespace, name string) error {
	return c.put(ctx, namespace, name, "start")
}

// Stop asks virt-api to stop the VM.
func (c Client) Stop(ctx context.Context, namespace, name string) error {
	return c.put(ctx, namespace, name, "stop")
}

// put sends the request. virt-api answers a refused one with a
// metav1.Status the client turns into the error (a 409 when the VM already
// is as asked), which the Tasks report as upstream does, as is.
func (c Client) put(ctx context.Context, namespace, name, verb string) error {
	return c.rest.Put().
		AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", namespace, "virtualmachines", name, verb).
		Body([]byte("{}")).
		SetHeader("Content-Type", "application/json").
		Do(ctx).Error()
}
