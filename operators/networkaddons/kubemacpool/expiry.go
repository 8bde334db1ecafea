package kubemacpool

import (
	"fmt"
	"time"
)

// VMLookup reports the MACs an existing VM's interfaces carry, and whether
// the VM exists at all. owner is the pool's key for the VM (VMKey).
type VMLookup func(owner string) (macs []string, found bool, err error)

// ExpireStale heals reservations older than the wait time, kubemacpool's
// "waiting for VM creation" clean-up: the webhook reserved them, but the
// VM's create or update never reached the controller (refused after the
// webhook, or the process restarted). Each is checked against the VM as it
// is: a MAC the VM carries stays allocated, any other is freed. It returns
// how many MACs were freed.
func (p *Pool) ExpireStale(now time.Time, lookup VMLookup) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	vms := map[string]map[uint64]bool{}
	freed := 0
	for mac, e := range p.macs {
		if !e.pending || now.Sub(e.since) < p.waitTime {
			continue
		}
		carried, ok := vms[e.owner]
		if !ok {
			var err error
			if carried, err = p.vmMACs(e.owner, lookup); err != nil {
				return freed, err
			}
			vms[e.owner] = carried
		}
		if carried[mac] {
			e.pending, e.releasing = false, false
			continue
		}
		delete(p.macs, mac)
		freed++
	}
	return freed, nil
}

// vmMACs asks lookup for owner's MACs; a VM that does not exist carries none.
func (p *Pool) vmMACs(owner string, lookup VMLookup) (map[uint64]bool, error) {
	macs, found, err := lookup(owner)
	if err != nil {
		return nil, fmt.Errorf("looking up %s for its stale mac reservations: %w", owner, err)
	}
	carried := map[uint64]bool{}
	if !found {
		return carried, nil
	}
	for _, m := range macs {
		if hw, err := parseMAC48(m); err == nil {
			carried[macToUint(hw)] = true
		}
	}
	return carried, nil
}
