package handler

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/virtflow/virtflow/contracts/typed"
	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/node/libvirt"
)

// A copy's counters change on every poll, and every report is a signal,
// a workflow task and a memo upsert in the migration's history, which
// Temporal bounds: they are reported at most every reportEvery, not once a
// heartbeat, and a long copy's reports are spaced by a reportShare-th of
// its age, so even a day-long copy adds some hundreds, not thousands.
const (
	reportEvery = 5 * time.Second
	reportShare = 120
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
	// start is when the copy's monitoring began.
	start  time.Time
	sent   virt.CopyProgress
	sentAt time.Time
}

// reporter is the copy's reporter; nil, reporting nothing, without a
// Signaller.
func (m *Migrations) reporter() *copyReporter {
	if m.signals == nil {
		return nil
	}
	return &copyReporter{signals: m.signals, now: time.Now, every: reportEvery, start: time.Now()}
}

// report sends p when the copy has counters, they changed since the last
// report, and the last report is old enough.
func (r *copyReporter) report(ctx context.Context, p virt.CopyProgress) {
	if r == nil || p.DataTotal == 0 || p == r.sent || !r.due() {
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

// due says whether the gap since the last report has passed.
func (r *copyReporter) due() bool {
	if r.sentAt.IsZero() {
		return true
	}
	now := r.now()
	gap := max(r.every, now.Sub(r.start)/reportShare)
	return now.Sub(r.sentAt) >= gap
}

// copyProgressOf is libvirt's job as the migration reports it.
func copyProgressOf(p libvirt.JobProgress) virt.CopyProgress {
	return virt.CopyProgress{DataTotal: p.DataTotal, DataProcessed: p.DataProcessed, DataRemaining: p.DataRemaining,
		DirtyRate: p.MemoryDirtyRate, Iteration: p.MemoryIteration, MemoryTransferRate: p.MemoryBps}
}
