package kubemacpool

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"
)

// DefaultWaitTime is how long a reservation waits for its VM to be persisted
// before the pool checks whether that VM exists (cluster-network-addons-
// operator starts kubemacpool with --wait-time=300).
const DefaultWaitTime = 300 * time.Second

// ErrFull is kubemacpool's answer when no MAC of the range is free.
var ErrFull = errors.New("the range is full")

// ErrInUse is kubemacpool's answer when a requested MAC belongs to another
// VM interface; users and upstream's tests match on its text.
var ErrInUse = errors.New("failed to allocate requested mac address")

// entry is one MAC's holder. A pending entry is a reservation made by the
// webhook for a VM that may never be persisted (another webhook or the API
// server can still refuse it); releasing marks a MAC the VM's update gave up,
// freed only once that update is persisted.
type entry struct {
	owner     string
	iface     string
	since     time.Time
	pending   bool
	releasing bool
}

// Pool is the cluster's MAC map. One mutex guards it, so two concurrent
// admissions never see the same MAC as free.
type Pool struct {
	mu       sync.Mutex
	rng      Range
	start    uint64
	end      uint64
	current  uint64
	macs     map[uint64]*entry
	waitTime time.Duration
}

// NewPool makes an empty pool over r. Like kubemacpool it starts handing out
// MACs at a random point of the range, so a restarted pool does not re-offer
// the MACs it gave out just before.
func NewPool(r Range, waitTime time.Duration) (*Pool, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	p := &Pool{rng: r, start: macToUint(r.Start), end: macToUint(r.End), macs: map[uint64]*entry{}, waitTime: waitTime}
	offset, err := rand.Int(rand.Reader, new(big.Int).SetUint64(p.end-p.start+1))
	if err != nil {
		return nil, fmt.Errorf("choosing the pool's first mac: %w", err)
	}
	p.current = p.start + offset.Uint64()
	return p, nil
}

// Range is the span the pool allocates from.
func (p *Pool) Range() Range { return p.rng }

// nextFree walks from the MAC after the last one handed out, wrapping once,
// so a MAC just released is not reused at once (guests' DHCP leases and
// neighbours' ARP caches still name it).
func (p *Pool) nextFree() (uint64, error) {
	size := p.end - p.start + 1
	for i := uint64(0); i < size; i++ {
		mac := p.current
		if p.current == p.end {
			p.current = p.start
		} else {
			p.current++
		}
		if _, used := p.macs[mac]; !used {
			return mac, nil
		}
	}
	return 0, ErrFull
}

// reserveNext takes the next free MAC for owner's interface as a pending
// reservation. The caller holds p.mu.
func (p *Pool) reserveNext(owner, iface string, at time.Time) (string, error) {
	mac, err := p.nextFree()
	if err != nil {
		return "", err
	}
	p.macs[mac] = &entry{owner: owner, iface: iface, since: at, pending: true}
	return uintToMAC(mac).String(), nil
}

// reserveRequested takes a MAC the VM names itself. A MAC outside the range
// is allowed, as kubemacpool allows it; one held by another interface is
// not. The caller holds p.mu.
func (p *Pool) reserveRequested(owner, iface, mac string, at time.Time) error {
	hw, err := parseMAC48(mac)
	if err != nil {
		return err
	}
	key := macToUint(hw)
	if e, used := p.macs[key]; used && (e.owner != owner || e.iface != iface) {
		return ErrInUse
	}
	p.macs[key] = &entry{owner: owner, iface: iface, since: at, pending: true}
	return nil
}

// Allocate reserves the next free MAC for one interface of owner.
func (p *Pool) Allocate(owner, iface string, at time.Time) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reserveNext(owner, iface, at)
}

// AllocateRequested reserves mac for one interface of owner.
func (p *Pool) AllocateRequested(owner, iface, mac string, at time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reserveRequested(owner, iface, mac, at)
}

// Release frees every MAC owner holds (its VM is gone) and says how many.
func (p *Pool) Release(owner string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for mac, e := range p.macs {
		if e.owner == owner {
			delete(p.macs, mac)
			n++
		}
	}
	return n
}

// Commit settles owner's reservations made at or before persisted, the
// transaction timestamp the persisted VM carries: its new MACs become
// allocated and the ones it gave up are freed. Later reservations wait for
// their own update.
func (p *Pool) Commit(owner string, persisted time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for mac, e := range p.macs {
		if e.owner != owner || !e.pending || e.since.After(persisted) {
			continue
		}
		if e.releasing {
			delete(p.macs, mac)
			continue
		}
		e.pending = false
	}
}

// Owner names the VM and interface holding mac, and whether it is still a
// reservation.
func (p *Pool) Owner(mac string) (owner, iface string, pending, ok bool) {
	hw, err := parseMAC48(mac)
	if err != nil {
		return "", "", false, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.macs[macToUint(hw)]
	if !ok {
		return "", "", false, false
	}
	return e.owner, e.iface, e.pending, true
}

// Len is the number of MACs held, reserved or allocated.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.macs)
}
