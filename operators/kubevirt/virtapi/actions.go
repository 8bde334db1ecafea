package virtapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Actions implements the VM subresources the way upstream does: start,
// stop and restart by changing the run strategy where it decides, else by
// a state-change request the VM controller carries out; migrate by
// creating a migration (migrate.go).
type Actions struct{ Client client.Client }

func (a *Actions) load(ctx context.Context, ns, name string) (*kubevirtv1.VirtualMachine, *kubevirtv1.VirtualMachineInstance, kubevirtv1.VirtualMachineRunStrategy, error) {
	vm := &kubevirtv1.VirtualMachine{}
	if err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, "", &ActionError{Code: http.StatusNotFound, Message: fmt.Sprintf("virtualmachine.kubevirt.io %q not found", name)}
		}
		return nil, nil, "", err
	}
	strategy, err := vm.RunStrategy()
	if err != nil {
		return nil, nil, "", &ActionError{Code: http.StatusInternalServerError, Message: err.Error()}
	}
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, vmi); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, nil, "", err
		}
		vmi = nil
	}
	return vm, vmi, strategy, nil
}

func running(vmi *kubevirtv1.VirtualMachineInstance) bool {
	return vmi != nil && vmi.DeletionTimestamp == nil && !vmi.IsFinal()
}

// Start starts a stopped VM.
func (a *Actions) Start(ctx context.Context, ns, name string) error {
	vm, vmi, strategy, err := a.load(ctx, ns, name)
	if err != nil {
		return err
	}
	if running(vmi) {
		return vmConflict(name, "VM is already running")
	}
	switch strategy {
	case kubevirtv1.RunStrategyHalted, kubevirtv1.RunStrategyAlways:
		return a.setStrategy(ctx, vm, kubevirtv1.RunStrategyAlways)
	}
	return a.request(ctx, vm, kubevirtv1.VirtualMachineStateChangeRequest{Action: kubevirtv1.StartRequest})
}

// Stop stops a running VM; a grace period overrides the VMI's own.
func (a *Actions) Stop(ctx context.Context, ns, name string, gracePeriod *int64) error {
	vm, vmi, strategy, err := a.load(ctx, ns, name)
	if err != nil {
		return err
	}
	if !running(vmi) && strategy != kubevirtv1.RunStrategyAlways {
		return vmConflict(name, "VM is not running")
	}
	if gracePeriod != nil && running(vmi) {
		if err := a.shortenGrace(ctx, vmi, *gracePeriod); err != nil {
			return err
		}
	}
	switch strategy {
	case kubevirtv1.RunStrategyHalted, kubevirtv1.RunStrategyAlways:
		return a.setStrategy(ctx, vm, kubevirtv1.RunStrategyHalted)
	}
	uid := vmi.UID
	return a.request(ctx, vm, kubevirtv1.VirtualMachineStateChangeRequest{Action: kubevirtv1.StopRequest, UID: &uid})
}

// Restart stops and starts the VM's instance.
func (a *Actions) Restart(ctx context.Context, ns, name string) error {
	vm, vmi, strategy, err := a.load(ctx, ns, name)
	if err != nil {
		return err
	}
	if strategy == kubevirtv1.RunStrategyHalted {
		return vmConflict(name, "RunStategy %s does not support manual restart requests", strategy)
	}
	if !running(vmi) {
		return vmConflict(name, "VM is not running")
	}
	uid := vmi.UID
	return a.request(ctx, vm,
		kubevirtv1.VirtualMachineStateChangeRequest{Action: kubevirtv1.StopRequest, UID: &uid},
		kubevirtv1.VirtualMachineStateChangeRequest{Action: kubevirtv1.StartRequest})
}

func (a *Actions) setStrategy(ctx context.Context, vm *kubevirtv1.VirtualMachine, s kubevirtv1.VirtualMachineRunStrategy) error {
	patch := client.MergeFrom(vm.DeepCopy())
	if vm.Spec.Running != nil {
		on := s == kubevirtv1.RunStrategyAlways
		vm.Spec.Running = &on
	} else {
		vm.Spec.RunStrategy = &s
	}
	if err := a.Client.Patch(ctx, vm, patch); err != nil {
		return fmt.Errorf("changing the run strategy of %s: %w", vm.Name, err)
	}
	return nil
}

func (a *Actions) request(ctx context.Context, vm *kubevirtv1.VirtualMachine, reqs ...kubevirtv1.VirtualMachineStateChangeRequest) error {
	if len(vm.Status.StateChangeRequests) > 0 {
		return internal("unable to complete request: stop/start already underway")
	}
	patch := client.MergeFrom(vm.DeepCopy())
	vm.Status.StateChangeRequests = append(vm.Status.StateChangeRequests, reqs...)
	if err := a.Client.Status().Patch(ctx, vm, patch); err != nil {
		return fmt.Errorf("requesting a state change of %s: %w", vm.Name, err)
	}
	return nil
}

func (a *Actions) shortenGrace(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, seconds int64) error {
	patch := client.MergeFrom(vmi.DeepCopy())
	vmi.Spec.TerminationGracePeriodSeconds = &seconds
	if err := a.Client.Patch(ctx, vmi, patch); err != nil {
		return fmt.Errorf("setting the grace period of %s: %w", vmi.Name, err)
	}
	return nil
}

// StopOptions is the body upstream's stop accepts.
type StopOptions struct {
	GracePeriod *int64   `json:"gracePeriod,omitempty"`
	DryRun      []string `json:"dryRun,omitempty"`
}

func decodeStop(r *http.Request) (StopOptions, error) {
	var o StopOptions
	if r.ContentLength == 0 {
		return o, nil
	}
	err := json.NewDecoder(r.Body).Decode(&o)
	return o, err
}
