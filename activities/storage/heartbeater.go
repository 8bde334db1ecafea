package storage

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// heartbeater records the last checkpoint and the percentage on a timer,
// not on every qemu-img progress line, and hands the percentage to the
// attempt's reporter, which tells the workflow when it moved enough.
type heartbeater struct {
	mu      sync.Mutex
	p       checkpoint
	done    chan struct{}
	stopped sync.Once
}

func newHeartbeater(ctx context.Context, from int64, rep *reporter) *heartbeater {
	h := &heartbeater{p: checkpoint{Offset: from, ResumedFrom: from}, done: make(chan struct{})}
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			h.mu.Lock()
			p := h.p
			h.mu.Unlock()
			activity.RecordHeartbeat(ctx, p)
			rep.progress(ctx, p.Percent)
			select {
			case <-t.C:
			case <-h.done:
				return
			}
		}
	}()
	return h
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

// maxStalls is how many attempts in a row may stall at the same place
// before the import gives up on its source.
const maxStalls = 3

// carryStalls keeps the previous attempts' stall count in the heartbeats.
func (h *heartbeater) carryStalls(last checkpoint) {
	h.mu.Lock()
	h.p.Stalls, h.p.StalledAt = last.Stalls, last.StalledAt
	h.mu.Unlock()
}

// stalled turns a stalled copy into the attempt's failure: retryable
// (the retry resumes from the last checkpoint) until maxStalls attempts in
// a row stalled without getting further, then final. The count goes into
// the last heartbeat, which the next attempt reads.
func (h *heartbeater) stalled(ctx context.Context, e *StallError, source string) error {
	h.stop()
	h.mu.Lock()
	if e.Offset > h.p.StalledAt {
		h.p.Stalls = 0
	}
	h.p.Stalls++
	h.p.StalledAt = max(h.p.StalledAt, e.Offset)
	p := h.p
	h.mu.Unlock()
	activity.RecordHeartbeat(ctx, p)
	msg := fmt.Sprintf("Unable to transfer source data: %s at %.2f%% (attempt %d of %d without progress)", e, p.Percent, p.Stalls, maxStalls)
	if source != "" {
		msg = fmt.Sprintf("Unable to transfer source data from %s: %s at %.2f%% (attempt %d of %d without progress)", source, e, p.Percent, p.Stalls, maxStalls)
	}
	if p.Stalls >= maxStalls {
		// No cause: the message already says it, and a condition shows
		// the innermost cause alone.
		return temporal.NewNonRetryableApplicationError(msg+"; the source stopped sending: check it and recreate the DataVolume", cdi.ErrTypeTransferStalled, nil)
	}
	return temporal.NewApplicationError(msg+"; retrying from the last checkpoint", cdi.ErrTypeTransferStalled)
}
