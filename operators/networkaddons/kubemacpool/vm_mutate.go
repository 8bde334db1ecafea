package kubemacpool

import (
	"fmt"
	"time"

	kubevirtv1 "kubevirt.io/api/core/v1"
)

// TransactionTimestampAnnotation carries the time of the admission that last
// changed a VM's MACs; the controller commits reservations up to it once the
// VM is persisted.
const TransactionTimestampAnnotation = "kubemacpool.io/transaction-timestamp"

// VMKey is the pool's owner key for a VM, kubemacpool's "vm/<ns>/<name>".
func VMKey(vm *kubevirtv1.VirtualMachine) string {
	return fmt.Sprintf("vm/%s/%s", vm.Namespace, vm.Name)
}

// managedInterfaces are the interfaces kubemacpool gives MACs: masquerade or
// slirp on the pod network, and any interface on a Multus network. A bridge
// binding on the pod network takes the pod's own MAC, so it gets none.
func managedInterfaces(vm *kubevirtv1.VirtualMachine) []kubevirtv1.Interface {
	if vm.Spec.Template == nil {
		return nil
	}
	multus := map[string]bool{}
	for _, n := range vm.Spec.Template.Spec.Networks {
		multus[n.Name] = n.Multus != nil
	}
	var out []kubevirtv1.Interface
	for _, iface := range vm.Spec.Template.Spec.Domain.Devices.Interfaces {
		if iface.Masquerade != nil || iface.DeprecatedSlirp != nil || multus[iface.Name] {
			out = append(out, iface)
		}
	}
	return out
}

// txn remembers the entries an admission changed so a failure part-way
// leaves the pool as it was.
type txn struct {
	p     *Pool
	saved map[uint64]*entry
}

func (t *txn) save(mac uint64) {
	if _, done := t.saved[mac]; done {
		return
	}
	if e, ok := t.p.macs[mac]; ok {
		c := *e
		t.saved[mac] = &c
		return
	}
	t.saved[mac] = nil
}

func (t *txn) rollback() {
	for mac, e := range t.saved {
		if e == nil {
			delete(t.p.macs, mac)
			continue
		}
		t.p.macs[mac] = e
	}
}

func (t *txn) requested(owner, iface, mac string, at time.Time) error {
	hw, err := parseMAC48(mac)
	if err != nil {
		return err
	}
	t.save(macToUint(hw))
	return t.p.reserveRequested(owner, iface, mac, at)
}

func (t *txn) next(owner, iface string, at time.Time) (string, error) {
	saved := t.p.current
	mac, err := t.p.reserveNext(owner, iface, at)
	if err != nil {
		t.p.current = saved
		return "", err
	}
	hw, _ := parseMAC48(mac)
	t.saved[macToUint(hw)] = nil
	return mac, nil
}

// release marks a MAC the VM gives up; it is freed when the update commits.
func (t *txn) release(owner, mac string, at time.Time) {
	hw, err := parseMAC48(mac)
	if err != nil {
		return
	}
	key := macToUint(hw)
	if e, ok := t.p.macs[key]; ok && e.owner == owner {
		t.save(key)
		e.pending, e.releasing, e.since = true, true, at
	}
}
