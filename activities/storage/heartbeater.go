package storage

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// heartbeater records the last checkpoint and the percentage on a timer,
// not on every qemu-img progress line, and publishes a changed percentage
// on the claim.
type heartbeater struct {
	mu      sync.Mutex
	p       checkpoint
	done    chan struct{}
	stopped sync.Once
}

func newHeartbeater(ctx context.Context, from int64, claim *claimNotes) *heartbeater {
	h := &heartbeater{p: checkpoint{Offset: from, ResumedFrom: from}, done: make(chan struct{})}
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		published := -1.0
		for {
			h.mu.Lock()
			p := h.p
			h.mu.Unlock()
			activity.RecordHeartbeat(ctx, p)
			if p.Percent != published {
				claim.set(ctx, map[string]*string{cdi.AnnProgress: percent(p.Percent)})
				published = p.Percent
			}
			select {
			case <-t.C:
			case <-h.done:
				return
			}
		}
	}()
	return h
}

func percent(p float64) *string {
	s := fmt.Sprintf("%.2f%%", p)
	return &s
}

func (h *heartbeater) checkpoint(off int64) {
	h.mu.Lock()
	h.p.Offset = off
	h.mu.Unlock()
}

func (h *heartbeater) progress(pct float64) {
	h.mu.Lock()
	h.p.Percent = pct
	h.mu.Unlock()
}

func (h *heartbeater) stop() { h.stopped.Do(func() { close(h.done) }) }
