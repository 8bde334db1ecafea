package kubemacpool

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// newTestPool starts at the range's first MAC so allocations are predictable.
func newTestPool(t *testing.T, start, end string) *Pool {
	t.Helper()
	r, err := ParseRange(start, end)
	require.NoError(t, err)
	p, err := NewPool(r, time.Minute)
	require.NoError(t, err)
	p.current = p.start
	return p
}

func TestParseRangeRefusesBadRanges(t *testing.T) {
	_, err := ParseRange("02:00:00:00:00:10", "02:00:00:00:00:01")
	assert.EqualError(t, err, "invalid range. rangeStart: 02:00:00:00:00:10 rangeEnd: 02:00:00:00:00:01")
	_, err = ParseRange("02:00:00:00:00:01", "02:00:00:00:00:01")
	assert.Error(t, err, "kubemacpool wants start strictly before end")
	_, err = ParseRange("03:00:00:00:00:00", "03:00:00:00:00:ff")
	assert.EqualError(t, err, "invalid range start: invalid mac address. Multicast addressing is not supported. Unicast addressing must be used. The first octet is 0X3")
	_, err = ParseRange("nope", "02:00:00:00:00:01")
	assert.EqualError(t, err, "failed to parse rangeStart because the mac address is invalid")
	_, err = ParseRange("02:00:00:00:00:00", "")
	assert.EqualError(t, err, "both or none of the KubeMacPool ranges needs to be configured")
	// A lexicographic byte walk would take this inverted range as valid.
	_, err = ParseRange("02:10:00:00:00:00", "02:01:ff:00:00:00")
	assert.Error(t, err)
}

func TestDefaultRangeIsLocalUnicastWithRandomPrefix(t *testing.T) {
	r, err := DefaultRange(bytes.NewReader([]byte{0xab, 0xcd}))
	require.NoError(t, err)
	assert.Equal(t, "02:ab:cd:00:00:00", r.Start.String())
	assert.Equal(t, "02:ab:cd:ff:ff:ff", r.End.String())
	require.NoError(t, r.validate())
}

func TestAllocateIsRoundRobinAndReleaseIsNotReusedAtOnce(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:03")
	a, err := p.Allocate("vm/ns/a", "eth0", t0)
	require.NoError(t, err)
	b, err := p.Allocate("vm/ns/b", "eth0", t0)
	require.NoError(t, err)
	assert.Equal(t, "02:00:00:00:00:00", a)
	assert.Equal(t, "02:00:00:00:00:01", b)
	assert.Equal(t, 1, p.Release("vm/ns/a"))
	c, err := p.Allocate("vm/ns/c", "eth0", t0)
	require.NoError(t, err)
	assert.Equal(t, "02:00:00:00:00:02", c, "the freed MAC waits for the walk to come round")
}

func TestExhaustionThenWrapToFreed(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:01")
	_, err := p.Allocate("vm/ns/a", "eth0", t0)
	require.NoError(t, err)
	_, err = p.Allocate("vm/ns/b", "eth0", t0)
	require.NoError(t, err)
	_, err = p.Allocate("vm/ns/c", "eth0", t0)
	assert.ErrorIs(t, err, ErrFull)
	assert.EqualError(t, err, "the range is full")
	p.Release("vm/ns/a")
	mac, err := p.Allocate("vm/ns/c", "eth0", t0)
	require.NoError(t, err)
	assert.Equal(t, "02:00:00:00:00:00", mac)
}

func TestRequestedMACs(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	require.NoError(t, p.AllocateRequested("vm/ns/a", "eth0", "02:00:00:00:00:05", t0))
	err := p.AllocateRequested("vm/ns/b", "eth0", "02-00-00-00-00-05", t0)
	assert.EqualError(t, err, "failed to allocate requested mac address", "another spelling of a held MAC collides")
	require.NoError(t, p.AllocateRequested("vm/ns/a", "eth0", "02:00:00:00:00:05", t0), "the holder may ask again")
	assert.Error(t, p.AllocateRequested("vm/ns/a", "eth1", "02:00:00:00:00:05", t0), "two interfaces of one VM may not share")
	require.NoError(t, p.AllocateRequested("vm/ns/c", "eth0", "0a:00:00:00:00:01", t0), "outside the range but free is allowed")
	assert.Error(t, p.AllocateRequested("vm/ns/d", "eth0", "not-a-mac", t0))
	for i := 0; i < 16; i++ {
		mac, err := p.Allocate(fmt.Sprintf("vm/ns/x%d", i), "eth0", t0)
		if i == 15 {
			assert.ErrorIs(t, err, ErrFull)
			continue
		}
		require.NoError(t, err)
		assert.NotEqual(t, "02:00:00:00:00:05", mac, "the pool never offers a requested MAC")
	}
}

func TestConcurrentCreationsGetDistinctMACs(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:ff:ff")
	var wg sync.WaitGroup
	macs := make([]string, 50)
	errs := make([]error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			vm := testVM("ns", fmt.Sprintf("vm%d", i), podIface("default", ""))
			out, err := p.MutateVM(nil, vm, t0)
			errs[i] = err
			if err == nil {
				macs[i] = out.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress
			}
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, mac := range macs {
		require.NoError(t, errs[i])
		assert.False(t, seen[mac], "MAC %s handed out twice", mac)
		seen[mac] = true
	}
	assert.Len(t, seen, 50)
}

func TestStaleReservationExpires(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	ghost, err := p.Allocate("vm/ns/ghost", "eth0", t0)
	require.NoError(t, err)
	kept, err := p.Allocate("vm/ns/real", "eth0", t0)
	require.NoError(t, err)
	lookup := func(owner string) ([]string, bool, error) {
		if owner == "vm/ns/real" {
			return []string{kept}, true, nil
		}
		return nil, false, nil
	}
	freed, err := p.ExpireStale(t0.Add(30*time.Second), lookup)
	require.NoError(t, err)
	assert.Zero(t, freed, "nothing expires before the wait time")
	freed, err = p.ExpireStale(t0.Add(2*time.Minute), lookup)
	require.NoError(t, err)
	assert.Equal(t, 1, freed)
	_, _, _, held := p.Owner(ghost)
	assert.False(t, held, "the VM that never appeared lost its reservation")
	owner, _, pending, held := p.Owner(kept)
	assert.True(t, held)
	assert.False(t, pending, "the persisted VM's MAC is now allocated")
	assert.Equal(t, "vm/ns/real", owner)
}

func TestExpireStaleReportsLookupErrors(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	mac, err := p.Allocate("vm/ns/a", "eth0", t0)
	require.NoError(t, err)
	_, err = p.ExpireStale(t0.Add(time.Hour), func(string) ([]string, bool, error) {
		return nil, false, fmt.Errorf("apiserver down")
	})
	assert.ErrorContains(t, err, "apiserver down")
	_, _, _, held := p.Owner(mac)
	assert.True(t, held, "an unanswered lookup frees nothing")
}
