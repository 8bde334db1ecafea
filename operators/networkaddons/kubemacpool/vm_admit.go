package kubemacpool

import (
	"fmt"
	"time"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// MutateVM gives vm's managed interfaces their MACs and returns the mutated
// copy; old is the stored VM on update and nil on create. On update an
// interface keeps the MAC it had, a changed or removed one is released once
// the update commits. Nothing is reserved when it fails.
func (p *Pool) MutateVM(old, vm *kubevirtv1.VirtualMachine, at time.Time) (*kubevirtv1.VirtualMachine, error) {
	return p.mutate(old, vm, at, true)
}

// mutate is MutateVM; keep false undoes every reservation once the MACs are
// chosen, for a dry-run request whose VM is never stored.
func (p *Pool) mutate(old, vm *kubevirtv1.VirtualMachine, at time.Time, keep bool) (*kubevirtv1.VirtualMachine, error) {
	out := vm.DeepCopy()
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &txn{p: p, saved: map[uint64]*entry{}}
	cursor := p.current
	err := t.assign(old, out, at)
	if err != nil || !keep {
		t.rollback()
		p.current = cursor
	}
	if err != nil {
		if old == nil {
			return nil, fmt.Errorf("Failed to allocate mac to the vm object: %w", err)
		}
		return nil, fmt.Errorf("Failed to update the vm object macs: %w", err)
	}
	if len(t.saved) > 0 {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[TransactionTimestampAnnotation] = at.UTC().Format(time.RFC3339Nano)
	}
	return out, nil
}

// assign walks the requested interfaces against the stored ones.
func (t *txn) assign(old, vm *kubevirtv1.VirtualMachine, at time.Time) error {
	owner := VMKey(vm)
	had := map[string]string{}
	if old != nil {
		for _, iface := range managedInterfaces(old) {
			had[iface.Name] = iface.MacAddress
		}
	}
	managed := map[string]bool{}
	for _, iface := range managedInterfaces(vm) {
		managed[iface.Name] = true
	}
	ifaces := vm.Spec.Template.Spec.Domain.Devices.Interfaces
	for i := range ifaces {
		if !managed[ifaces[i].Name] {
			continue
		}
		if err := t.assignOne(owner, &ifaces[i], had, at); err != nil {
			return err
		}
		delete(had, ifaces[i].Name)
	}
	for _, mac := range had {
		t.release(owner, mac, at)
	}
	return nil
}

// assignOne keeps, takes or allocates one interface's MAC.
func (t *txn) assignOne(owner string, iface *kubevirtv1.Interface, had map[string]string, at time.Time) error {
	prev, existed := had[iface.Name]
	switch {
	case existed && prev != "" && (iface.MacAddress == "" || iface.MacAddress == prev):
		iface.MacAddress = prev
		return nil
	case iface.MacAddress != "":
		if err := t.requested(owner, iface.Name, iface.MacAddress, at); err != nil {
			return err
		}
		if existed && prev != "" {
			t.release(owner, prev, at)
		}
		return nil
	default:
		mac, err := t.next(owner, iface.Name, at)
		if err != nil {
			return err
		}
		iface.MacAddress = mac
		return nil
	}
}
