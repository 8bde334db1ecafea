package kubemacpool

import (
	"encoding/json"
	"fmt"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Review is the webhook's answer to one VirtualMachine admission.
type Review struct {
	// Allowed is false when the VM's MACs could not be given.
	Allowed bool
	// Message is the denial, worded as kubemacpool's webhook words it.
	Message string
	// Patch turns the submitted VM into the mutated one.
	Patch []jsonpatch.Operation
}

// Admit is the webhook's logic for a create (old nil) or an update of vm in
// a namespace with nsLabels. A namespace the pool does not manage passes
// unchanged.
func (p *Pool) Admit(mode OptMode, nsLabels map[string]string, old, vm *kubevirtv1.VirtualMachine, at time.Time) (Review, error) {
	return p.admit(mode, nsLabels, old, vm, at, true)
}

// AdmitDryRun answers as Admit would but keeps no reservation: a dry-run
// request's VM is never stored, so nothing would ever commit or free it.
func (p *Pool) AdmitDryRun(mode OptMode, nsLabels map[string]string, old, vm *kubevirtv1.VirtualMachine, at time.Time) (Review, error) {
	return p.admit(mode, nsLabels, old, vm, at, false)
}

func (p *Pool) admit(mode OptMode, nsLabels map[string]string, old, vm *kubevirtv1.VirtualMachine, at time.Time, keep bool) (Review, error) {
	if !NamespaceManaged(mode, nsLabels) {
		return Review{Allowed: true}, nil
	}
	mutated, err := p.mutate(old, vm, at, keep)
	if err != nil {
		verb := "create"
		if old != nil {
			verb = "update"
		}
		return Review{Message: fmt.Sprintf("Failed to %s virtual machine allocation error: %v", verb, err)}, nil
	}
	patch, err := diff(vm, mutated)
	if err != nil {
		return Review{}, fmt.Errorf("patching virtual machine %s: %w", VMKey(vm), err)
	}
	return Review{Allowed: true, Patch: patch}, nil
}

func diff(before, after *kubevirtv1.VirtualMachine) ([]jsonpatch.Operation, error) {
	a, err := json.Marshal(before)
	if err != nil {
		return nil, fmt.Errorf("encoding the submitted vm: %w", err)
	}
	b, err := json.Marshal(after)
	if err != nil {
		return nil, fmt.Errorf("encoding the mutated vm: %w", err)
	}
	patch, err := jsonpatch.CreatePatch(a, b)
	if err != nil {
		return nil, fmt.Errorf("diffing the vm: %w", err)
	}
	return patch, nil
}
