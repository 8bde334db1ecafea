package createvm

import (
	"context"
	"errors"
	"fmt"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/subresources"
)

// needsStart tells whether startVM has anything to do: upstream leaves a
// VM alone that runs on its own (runStrategy Always or running: true).
func needsStart(vm *kubevirtv1.VirtualMachine) bool {
	if vm.Spec.RunStrategy != nil && *vm.Spec.RunStrategy == kubevirtv1.RunStrategyAlways {
		return false
	}
	return vm.Spec.Running == nil || !*vm.Spec.Running
}

// startVM asks virt-api to start the VM, as `virtctl start` does.
func startVM(ctx context.Context, env stepenv.Env, namespace, name string) error {
	if env.Config == nil {
		return errors.New("starting VM: no client configuration to reach virt-api")
	}
	c, err := subresources.NewClient(env.Config)
	if err != nil {
		return fmt.Errorf("starting VM %s/%s: building the client: %w", namespace, name, err)
	}
	return c.Start(ctx, namespace, name)
}
