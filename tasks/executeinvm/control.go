package executeinvm

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// vmControl starts and stops VMs the way upstream's tasks do: through
// virt-api's start and stop subresources, which pick between the run
// strategy and a state-change request, and which the Tasks' roles grant.
type vmControl interface {
	Start(ctx context.Context, namespace, name string) error
	Stop(ctx context.Context, namespace, name string) error
}

// subresources is vmControl over the API server.
type subresources struct{ client rest.Interface }

// newSubresources is the vmControl of env's API server.
func newSubresources(env stepenv.Env) (vmControl, error) {
	if env.Config == nil {
		return nil, errors.New("starting and stopping VMs needs the API server's configuration")
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.GroupVersion = nil
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the subresources client: %w", err)
	}
	return subresources{client: c}, nil
}

// Start asks virt-api to start the VM.
func (s subresources) Start(ctx context.Context, namespace, name string) error {
	return s.put(ctx, namespace, name, "start")
}

// Stop asks virt-api to stop the VM.
func (s subresources) Stop(ctx context.Context, namespace, name string) error {
	return s.put(ctx, namespace, name, "stop")
}

// put sends an empty options body, as upstream's client does; the error of
// a refused request is the API's Status (a 409 when already stopping).
func (s subresources) put(ctx context.Context, namespace, name, verb string) error {
	return s.client.Put().
		AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", namespace, "virtualmachines", name, verb).
		Body([]byte("{}")).SetHeader("Content-Type", "application/json").
		Do(ctx).Error()
}
