package handler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/virt"
)

// commander sends a verb to the source's launcher.
type commander interface {
	// Command asks the launcher for verb; an error says it was not done.
	Command(ctx context.Context, verb string) error
}

// watchdog is upstream's migration monitor. A copy past its completion
// budget, where the plan allows workload disruption, switches to
// post-copy (post-copy allowed) or has its guest paused, which doubles
// the budget; otherwise, or once the doubled budget is spent too, it is
// aborted. One that stops making progress is aborted. Post-copy has no
// timeouts: the target already runs the guest.
type watchdog struct {
	plan                virt.MigrationPlan
	start, lastProgress time.Time
	lowest              uint64
	budget              time.Duration
	mode                kubevirtv1.MigrationMode
}

// newWatchdog judges a copy that started at now in mode. A node agent
// that restarts mid-copy takes the mode back from the VMI, so a paused
// copy keeps its doubled budget and a post-copy is never aborted.
func newWatchdog(p virt.MigrationPlan, mode kubevirtv1.MigrationMode, now time.Time) *watchdog {
	w := &watchdog{plan: p, start: now, lastProgress: now, budget: p.CompletionTimeout, mode: mode}
	if w.mode == "" {
		w.mode = kubevirtv1.MigrationPreCopy
	}
	if w.mode == kubevirtv1.MigrationPaused {
		w.budget *= 2
	}
	return w
}

// act judges the copy's progress at now and applies the remedy it calls
// for, in upstream's order; an error ends the copy.
func (w *watchdog) act(ctx context.Context, cl commander, remaining uint64, now time.Time) error {
	if w.mode == kubevirtv1.MigrationPostCopy {
		return nil
	}
	if remaining > 0 && (w.lowest == 0 || remaining < w.lowest) {
		w.lowest, w.lastProgress = remaining, now
	}
	limit := w.budget
	if limit > 0 && now.Sub(w.start) > limit && w.plan.WorkloadDisruption && w.mode == kubevirtv1.MigrationPreCopy {
		if w.assist(ctx, cl) {
			return nil
		}
		// Refused, the remedy is tried again at the next look, as
		// upstream's monitor does, but only within the budget a paused
		// copy gets: upstream's copy whose remedy keeps failing is
		// never aborted.
		limit *= 2
	}
	if p := w.plan.ProgressTimeout; p > 0 && now.Sub(w.lastProgress) > p {
		return abort(ctx, cl, fmt.Sprintf("Live migration stuck for %d seconds and has been aborted", int(now.Sub(w.lastProgress).Seconds())))
	}
	if limit > 0 && now.Sub(w.start) > limit {
		return abort(ctx, cl, fmt.Sprintf("Live migration is not completed after %d seconds and has been aborted", int(limit.Seconds())))
	}
	return nil
}

// assist helps a copy that outlived its budget to its end: post-copy
// where allowed, else the guest is paused, so it dirties nothing more,
// and the budget doubles. False when the launcher refused the remedy.
func (w *watchdog) assist(ctx context.Context, cl commander) bool {
	verb, mode := "migrate-pause", kubevirtv1.MigrationPaused
	if w.plan.PostCopy {
		verb, mode = "migrate-postcopy", kubevirtv1.MigrationPostCopy
	}
	if err := cl.Command(ctx, verb); err != nil {
		slog.Warn("assisting a migration to complete", "remedy", verb, "error", err)
		return false
	}
	w.mode = mode
	if mode == kubevirtv1.MigrationPaused {
		w.budget *= 2
	}
	return true
}

// abort stops the copy and fails the step with why. A guest the copy
// paused is resumed by the workflow, which first learns from both nodes
// that the target does not run it.
func abort(ctx context.Context, cl commander, why string) error {
	if err := cl.Command(ctx, "migrate-abort"); err != nil {
		slog.Warn("aborting a migration", "why", why, "error", err)
	}
	return failed(why)
}
