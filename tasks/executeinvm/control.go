package executeinvm

import (
	"context"
	"errors"
	"fmt"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/subresources"
)

// vmControl starts and stops VMs the way upstream's tasks do: through
// virt-api's start and stop subresources, which pick between the run
// strategy and a state-change request, and which the Tasks' roles grant.
type vmControl interface {
	Start(ctx context.Context, namespace, name string) error
	Stop(ctx context.Context, namespace, name string) error
}

// newSubresources is the vmControl of env's API server: virt-api's start
// and stop subresources.
func newSubresources(env stepenv.Env) (vmControl, error) {
	if env.Config == nil {
		return nil, errors.New("starting and stopping VMs needs the API server's configuration")
	}
	c, err := subresources.NewClient(env.Config)
	if err != nil {
		return nil, fmt.Errorf("building the subresources client: %w", err)
	}
	return c, nil
}
