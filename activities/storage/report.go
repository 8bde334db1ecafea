package storage

import (
	"context"
	"math"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/typed"
)

// An attempt's percentage is reported when it moved by reportStep points
// and reportEvery passed since the last report: every report is a signal
// and a memo upsert in the workflow's history, so a long copy must not
// send one per heartbeat.
const (
	reportStep  = 1.0
	reportEvery = 5 * time.Second
	// reportTimeout bounds one signal, so a slow frontend delays neither
	// the heartbeats nor the activity's return for long.
	reportTimeout = 5 * time.Second
)

// reporter sends one attempt's progress to its own workflow
// (cdi.ProgressSignal), which publishes it in the memo the reconcilers
// read: the start, the percentage as throttled above, and how the attempt
// ended. A nil reporter sends nothing. Reports are notes, not the record:
// one that fails is logged, and the workflow's outcome still decides.
type reporter struct {
	signals typed.Signaller
	now     func() time.Time
	// mu serialises the sends, so the workflow receives them in order
	// and nothing follows the attempt's last report.
	mu     sync.Mutex
	cur    cdi.ActivityProgress
	sent   float64
	sentAt time.Time
	ended  bool
}

// reporter is the attempt's reporter; nil, reporting nothing, without a
// Signaller.
func (a *Activities) reporter(ctx context.Context, name string) *reporter {
	if a.Signals == nil {
		return nil
	}
	return &reporter{signals: a.Signals, now: time.Now, cur: cdi.ActivityProgress{Name: name, Attempt: activity.GetInfo(ctx).Attempt}}
}

// start reports that the attempt runs, with its upload server's address
// for an upload.
func (r *reporter) start(ctx context.Context, uploadServer string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.UploadServer = uploadServer
	r.send(ctx)
}

// progress notes the copy's percentage, reporting it when it moved enough.
func (r *reporter) progress(ctx context.Context, pct float64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.Percent = pct
	if r.ended || math.Abs(pct-r.sent) < reportStep || r.now().Sub(r.sentAt) < reportEvery {
		return
	}
	r.send(ctx)
}

// end reports how the attempt ended: done, or failed with err as Temporal
// will record it. A cancelled attempt reports nothing: its workflow is
// cleaning up, and shows that.
func (r *reporter) end(ctx context.Context, err error) {
	if r == nil || ctx.Err() != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.UploadServer = ""
	if err == nil {
		r.cur.Percent = 100
	} else {
		r.cur.Failure = failureMessage(err)
	}
	r.send(ctx)
	r.ended = true
}

// send signals the current progress; r.mu is held.
func (r *reporter) send(ctx context.Context) {
	if r.ended {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, reportTimeout)
	defer cancel()
	if err := cdi.ProgressSignal.SendFromActivity(sctx, r.signals, r.cur); err != nil {
		activity.GetLogger(ctx).Warn("reporting progress to the workflow", "error", err)
	}
	r.sent, r.sentAt = r.cur.Percent, r.now()
}

// failureMessage is err's message as Temporal records an activity's
// failure: an application error's own message, else the error's text.
func failureMessage(err error) string {
	if app, ok := err.(*temporal.ApplicationError); ok {
		return app.Message()
	}
	return err.Error()
}
