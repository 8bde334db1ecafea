package kubemacpool

import (
	"encoding/json"
	"fmt"
	"time"
)

// JournalConfigMap keeps the reservations the webhook made for VMs not
// stored yet, upstream's ConfigMap name: a restarted kubemacpool finds
// them there, since no VM carries them yet.
const JournalConfigMap = "kubemacpool-vm-configmap"

// Reservation is a pending MAC: handed out by the webhook to an interface
// of a VM the API server may still be storing.
type Reservation struct {
	MAC       string    `json:"-"`
	Owner     string    `json:"owner"`
	Interface string    `json:"interface"`
	Since     time.Time `json:"since"`
	Releasing bool      `json:"releasing,omitempty"`
}

// Pending lists the pool's reservations.
func (p *Pool) Pending() []Reservation {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Reservation
	for mac, e := range p.macs {
		if e.pending {
			out = append(out, Reservation{MAC: uintToMAC(mac).String(), Owner: e.owner, Interface: e.iface, Since: e.since, Releasing: e.releasing})
		}
	}
	return out
}

// RestorePending adds reservations a previous run journaled after a
// Rebuild: a MAC a stored VM carries stays that VM's, any other is held
// again for the VM it was promised to until it arrives or expires.
func (p *Pool) RestorePending(rs []Reservation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range rs {
		hw, err := parseMAC48(r.MAC)
		if err != nil {
			continue
		}
		if _, held := p.macs[macToUint(hw)]; held {
			continue
		}
		p.macs[macToUint(hw)] = &entry{owner: r.Owner, iface: r.Interface, since: r.Since, pending: true, releasing: r.Releasing}
	}
}

// EncodeReservations is the journal ConfigMap's data: one key per MAC.
func EncodeReservations(rs []Reservation) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range rs {
		v, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("encoding the reservation of %s: %w", r.MAC, err)
		}
		// ConfigMap keys may not hold ':'.
		out[macKey(r.MAC)] = string(v)
	}
	return out, nil
}

// DecodeReservations reads the journal ConfigMap's data; an entry it cannot
// read is skipped (its VM, if stored, holds the MAC anyway).
func DecodeReservations(data map[string]string) []Reservation {
	var out []Reservation
	for k, v := range data {
		var r Reservation
		if json.Unmarshal([]byte(v), &r) != nil {
			continue
		}
		r.MAC = keyMAC(k)
		out = append(out, r)
	}
	return out
}

func macKey(mac string) string {
	b := []byte(mac)
	for i := range b {
		if b[i] == ':' {
			b[i] = '-'
		}
	}
	return string(b)
}

func keyMAC(key string) string {
	b := []byte(key)
	for i := range b {
		if b[i] == '-' {
			b[i] = ':'
		}
	}
	return string(b)
}
