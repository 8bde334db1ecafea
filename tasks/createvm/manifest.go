package createvm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/virtctl"
)

// Labels the created VM gets, as upstream sets them.
const (
	// vmNameLabel pairs the VM's pods with services (RDP, SSH).
	vmNameLabel = "vm.kubevirt.io/name"
)

// manifestVM builds create-vm-from-manifest's VM: from the manifest or from
// the virtctl flags, exactly one of which must be given.
func manifestVM(ctx context.Context, env stepenv.Env, params stepenv.Params) (*kubevirtv1.VirtualMachine, error) {
	manifest, flags := params.String(ParamManifest), params.String(ParamVirtctl)
	if (manifest == "") == (flags == "") {
		return nil, errors.New("only one of vm-manifest or virtctl should be specified")
	}
	var vm *kubevirtv1.VirtualMachine
	var err error
	if manifest != "" {
		vm, err = vmFromManifest(manifest, params, env.Namespace)
	} else {
		vm, err = vmFromVirtctl(flags, params, env.Namespace)
	}
	if err != nil {
		return nil, err
	}
	if params.String(ParamSetOwnerReference) == "true" {
		if err := setPodOwnerReference(ctx, env, vm); err != nil {
			return nil, err
		}
	}
	return vm, nil
}

// vmFromManifest reads the manifest into the VM to create, in the namespace
// parameter, else the manifest's, else the active one.
func vmFromManifest(manifest string, params stepenv.Params, active string) (*kubevirtv1.VirtualMachine, error) {
	vm := &kubevirtv1.VirtualMachine{}
	if err := yaml.Unmarshal([]byte(manifest), vm); err != nil {
		return nil, fmt.Errorf("could not read VM manifest: %v", err)
	}
	namespace := strings.TrimSpace(params.String(ParamNamespace))
	if namespace == "" {
		namespace = vm.Namespace
	}
	if namespace == "" {
		namespace = active
	}
	vm.Namespace = namespace
	addNameLabel(vm)
	setRunStrategy(vm, params.String(ParamRunStrategy))
	return vm, nil
}

// vmFromVirtctl builds the VM `virtctl create vm` would print for flags,
// split on single spaces as upstream splits them. Upstream applies neither
// runStrategy nor the name label to such a VM; neither does this.
func vmFromVirtctl(flags string, params stepenv.Params, active string) (*kubevirtv1.VirtualMachine, error) {
	namespace := strings.TrimSpace(params.String(ParamNamespace))
	if namespace == "" {
		namespace = active
	}
	vm, err := virtctl.BuildVM(strings.Split(flags, " "), "")
	if err != nil {
		return nil, fmt.Errorf("failed to execute command: %v", err)
	}
	if vm.Namespace != "" && vm.Namespace != namespace {
		// The API server refuses an object whose namespace is not the
		// request's, which upstream's create sent to the namespace parameter.
		return nil, errors.New("the namespace of the provided object does not match the namespace sent on the request")
	}
	vm.Namespace = namespace
	return vm, nil
}

// addNameLabel labels the VM's pods (the VM itself when it has no
// template) with the VM's name, when it has one.
func addNameLabel(vm *kubevirtv1.VirtualMachine) {
	meta := &vm.ObjectMeta
	if vm.Spec.Template != nil {
		meta = &vm.Spec.Template.ObjectMeta
	}
	if meta.Labels == nil {
		meta.Labels = map[string]string{}
	}
	if vm.Name != "" {
		meta.Labels[vmNameLabel] = vm.Name
	}
}

// setRunStrategy replaces spec.running with the runStrategy parameter,
// when given.
func setRunStrategy(vm *kubevirtv1.VirtualMachine, strategy string) {
	if strategy == "" {
		return
	}
	rs := kubevirtv1.VirtualMachineRunStrategy(strategy)
	vm.Spec.Running = nil
	vm.Spec.RunStrategy = &rs
}
