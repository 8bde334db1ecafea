package kubemacpool

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Rebuild replaces the pool's map with the MACs the existing VMs carry, so a
// restarted pool refuses what was handed out before. Only VMs in managed
// namespaces count. A MAC two VMs carry stays with the first; the others
// are counted in kubevirt_kmp_duplicate_macs, and kmp_mac_collisions reports
// per MAC how many VMs share it. It returns that per-MAC count.
func (p *Pool) Rebuild(vms []kubevirtv1.VirtualMachine, managed func(namespace string) bool) map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.macs = map[uint64]*entry{}
	holders := map[uint64]map[string]bool{}
	for i := range vms {
		vm := &vms[i]
		if managed != nil && !managed(vm.Namespace) {
			continue
		}
		p.rebuildVM(vm, holders)
	}
	sharing := map[string]int{}
	for mac, owners := range holders {
		if len(owners) > 1 {
			sharing[uintToMAC(mac).String()] = len(owners)
			duplicateMACs.Add(float64(len(owners) - 1))
		}
	}
	publishCollisions(sharing)
	return sharing
}

// rebuildVM records one VM's MACs as allocated; a malformed MAC is skipped
// (the VM was admitted before, and refusing to start would block every other
// VM's admission).
func (p *Pool) rebuildVM(vm *kubevirtv1.VirtualMachine, holders map[uint64]map[string]bool) {
	owner := VMKey(vm)
	for _, iface := range managedInterfaces(vm) {
		hw, err := parseMAC48(iface.MacAddress)
		if iface.MacAddress == "" || err != nil {
			continue
		}
		mac := macToUint(hw)
		if holders[mac] == nil {
			holders[mac] = map[string]bool{}
		}
		holders[mac][owner] = true
		if _, used := p.macs[mac]; !used {
			p.macs[mac] = &entry{owner: owner, iface: iface.Name}
		}
	}
}
