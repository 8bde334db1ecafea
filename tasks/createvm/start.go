package createvm

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// needsStart tells whether startVM has anything to do: upstream leaves a
// VM alone that runs on its own (runStrategy Always or running: true).
func needsStart(vm *kubevirtv1.VirtualMachine) bool {
	if vm.Spec.RunStrategy != nil && *vm.Spec.RunStrategy == kubevirtv1.RunStrategyAlways {
		return false
	}
	return vm.Spec.Running == nil || !*vm.Spec.Running
}

// startVM asks virt-api to start the VM, as `virtctl start` does: a PUT on
// the start subresource of subresources.kubevirt.io, through the API server.
func startVM(ctx context.Context, env stepenv.Env, namespace, name string) error {
	if env.Config == nil {
		return errors.New("starting VM: no client configuration to reach virt-api")
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.GroupVersion = nil
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return fmt.Errorf("starting VM %s/%s: building the client: %w", namespace, name, err)
	}
	// virt-api answers with a metav1.Status the client turns into the error
	// upstream reports as is.
	return c.Put().
		AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", namespace, "virtualmachines", name, "start").
		Body([]byte("{}")).
		SetHeader("Content-Type", "application/json").
		Do(ctx).Error()
}
