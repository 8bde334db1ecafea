package ssptasks

import (
	"bytes"
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
)

// heartbeat records the task's last progress on a timer until stopped, so
// a task that reports nothing for a while is not taken for a lost one.
type heartbeat struct {
	mu     sync.Mutex
	detail string
	done   chan struct{}
	ended  chan struct{}
}

func startHeartbeat(ctx context.Context, every time.Duration, detail string) *heartbeat {
	h := &heartbeat{detail: detail, done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(h.ended)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			h.mu.Lock()
			d := h.detail
			h.mu.Unlock()
			activity.RecordHeartbeat(ctx, d)
			select {
			case <-t.C:
			case <-h.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return h
}

// set is the task's env.Progress: the next heartbeat carries detail.
func (h *heartbeat) set(detail string) {
	h.mu.Lock()
	h.detail = detail
	h.mu.Unlock()
}

// stop ends the heartbeats before the activity returns.
func (h *heartbeat) stop() {
	close(h.done)
	<-h.ended
}

// logWriter is a task's log: each line goes to the activity's logger, as
// a container step's lines go to its log.
type logWriter struct {
	mu     sync.Mutex
	logger log.Logger
	buf    []byte
}

func newLogWriter(ctx context.Context) *logWriter {
	return &logWriter{logger: activity.GetLogger(ctx)}
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.logger.Info(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}
