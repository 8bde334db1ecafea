package handler

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/virtflow/virtflow/contracts/typed"
	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/node/libvirt"
)

// A copy's counters change on every poll, and every report is a signal
// and a memo upsert in the migration's history: they are reported at most
// every reportEvery, not once a heartbeat.
const (
	reportEvery = 5 * time.Second
	// reportTimeout bounds one signal, so a slow frontend delays the
	// watchdog and the heartbeats little.
	reportTimeout = 3 * time.Second
)

// copyReporter sends a running copy's counters to its own migration
// workflow (virt.ProgressSignal), which shows them in its memo. A nil
// reporter sends nothing. Reports are notes, not the record: one that
// fails is logged, and the copy goes on.
type copyReporter struct {
	signals typed.Signaller
	now     func() time.Time
	every   time.Duration
	sent    virt.CopyProgress
	sentAt  time.Time
}

// reporter is the copy's reporter; nil, reporting nothing, without a
// Signaller.
func (m *Migrations) reporter() *copyReporter {
	if m.signals == nil {
		return nil
	}
	return &copyReporter{signals: m.signals, now: time.Now, every: reportEvery}
}

// report sends p when the copy has counters, they changed since the last
// report, and the last report is old enough.
func (r *copyReporter) report(ctx context.Context, p virt.CopyProgress) {
	if r == nil || p.DataTotal == 0 || p == r.sent || (!r.sentAt.IsZero() && r.now().Sub(r.sentAt) < r.every) {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, reportTimeout)
	defer cancel()
	if err := virt.ProgressSignal.SendFromActivity(sctx, r.signals, p); err != nil {
		activity.GetLogger(ctx).Warn("reporting the copy's progress to its migration", "error", err)
	}
	// A failed report is not retried before its turn: a frontend that
	// refuses it is not asked again on every poll.
	r.sent, r.sentAt = p, r.now()
}

// copyProgressOf is libvirt's job as the migration reports it.
func copyProgressOf(p libvirt.JobProgress) virt.CopyProgress {
	return virt.CopyProgress{DataTotal: p.DataTotal, DataProcessed: p.DataProcessed, DataRemaining: p.DataRemaining,
		DirtyRate: p.MemoryDirtyRate, Iteration: p.MemoryIteration, MemoryTransferRate: p.MemoryBps}
}
