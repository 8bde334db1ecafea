package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultStallTimeout is how long a source may send nothing before an
// import attempt gives up on it.
const DefaultStallTimeout = 60 * time.Second

// StallError is a copy that made no progress for Timeout; Offset is how
// far the target was written when it stalled.
type StallError struct {
	Offset  int64
	Timeout time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("no data received from the source for %s", e.Timeout)
}

// watchdog cancels its context when the copy it watches reports no
// progress for timeout: a source that stops sending mid-transfer would
// otherwise hold qemu-img (and the import) forever.
type watchdog struct {
	mu      sync.Mutex
	last    time.Time
	stalled bool
	stop    chan struct{}
}

// watch returns a context for one chunk's copy, a function to call on
// each progress report, and one that ends the watch and tells whether it
// stalled.
func watch(ctx context.Context, timeout time.Duration) (context.Context, func(), func() bool) {
	cctx, cancel := context.WithCancel(ctx)
	w := &watchdog{last: time.Now(), stop: make(chan struct{})}
	go func() {
		t := time.NewTicker(min(timeout/4, time.Second))
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-cctx.Done():
				return
			case <-t.C:
				w.mu.Lock()
				idle := time.Since(w.last)
				if idle >= timeout {
					w.stalled = true
				}
				stalled := w.stalled
				w.mu.Unlock()
				if stalled {
					cancel()
					return
				}
			}
		}
	}()
	alive := func() {
		w.mu.Lock()
		w.last = time.Now()
		w.mu.Unlock()
	}
	done := func() bool {
		close(w.stop)
		cancel()
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.stalled
	}
	return cctx, alive, done
}

// bounded runs a step that reads the source before the copy (probing it,
// inspecting the image) under the stall timeout: a source that answers
// nothing in that time has stalled where the copy would resume.
func bounded[T any](ctx context.Context, opts ImportOptions, step func(context.Context) (T, error)) (T, error) {
	timeout := opts.StallTimeout
	if timeout == 0 {
		timeout = DefaultStallTimeout
	}
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := step(bctx)
	if err != nil && errors.Is(bctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return v, &StallError{Offset: opts.From, Timeout: timeout}
	}
	return v, err
}
