package cdi

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// progressRelayChange versions the relay of the disk activity's progress
// signals into the memo. Runs recorded before it hold no marker and no
// signals; they replay DefaultVersion, which publishes only the steps.
const progressRelayChange = "progress-relay"

// progress is a fill's memo: the step the workflow is at and, while the
// disk activity runs, what the activity last reported.
type progress struct {
	p cdi.ImportProgress
	// activity names the disk activity; empty when the run does not relay
	// (DefaultVersion), so its memo keeps the shape it was recorded with.
	activity string
}

// newProgress decides, once and before the first publish, whether this run
// relays the activity's reports; a relaying run starts the relay.
func newProgress(ctx workflow.Context, activity string) *progress {
	pr := &progress{}
	if workflow.GetVersion(ctx, progressRelayChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return pr
	}
	pr.activity = activity
	workflow.Go(ctx, pr.relay)
	return pr
}

// publish moves to a new step, dropping what the activity reported of the
// last one. A relaying run's importing step starts with an activity that
// has not reported yet: a non-nil Activity tells the reconcilers that this
// run's memo carries the activity's progress.
func (pr *progress) publish(ctx workflow.Context, p cdi.ImportProgress) error {
	if pr.activity != "" && p.Step == cdi.StepImporting {
		p.Activity = &cdi.ActivityProgress{Name: pr.activity}
	}
	pr.p = p
	return upsert(ctx, p)
}

// relay publishes each report the activity signals while the workflow is
// importing; reports that arrived together are folded into one upsert.
// A report that reaches the workflow after it moved on (the activity
// signalled just before it returned) is dropped.
func (pr *progress) relay(ctx workflow.Context) {
	ch := cdi.ProgressSignal.Channel(ctx)
	for {
		if !ch.ReceiveBurst(ctx, pr.fold) {
			continue
		}
		if err := upsert(ctx, pr.p); err != nil {
			workflow.GetLogger(ctx).Warn("publishing the disk activity's progress", "error", err)
		}
	}
}

// fold takes one report into the memo and tells whether it changed it.
func (pr *progress) fold(r cdi.ActivityProgress) bool {
	if pr.p.Step != cdi.StepImporting || pr.p.Activity == nil || r.Name != pr.activity {
		return false
	}
	pr.p.Activity = next(*pr.p.Activity, r)
	return true
}

// next is the activity's progress after report r, given what the memo
// showed before (was). A failed attempt is shown as Temporal shows a
// retried activity: the next attempt, with the failure as LastFailure,
// which its own reports then keep. An attempt that starts without its
// predecessor having reported a failure had a predecessor that was lost
// (its worker died, or it stopped heartbeating).
func next(was, r cdi.ActivityProgress) *cdi.ActivityProgress {
	if r.Failure != "" {
		return &cdi.ActivityProgress{Name: r.Name, Attempt: r.Attempt + 1, LastFailure: r.Failure, Percent: r.Percent}
	}
	switch {
	case r.LastFailure != "":
	case r.Attempt == was.Attempt:
		r.LastFailure = was.LastFailure
	case r.Attempt > 1:
		r.LastFailure = fmt.Sprintf("attempt %d stopped without reporting a failure: its worker was lost or stopped heartbeating", r.Attempt-1)
	}
	return &r
}

func upsert(ctx workflow.Context, p cdi.ImportProgress) error {
	if err := workflow.UpsertMemo(ctx, map[string]interface{}{cdi.ProgressMemoKey: p}); err != nil {
		return fmt.Errorf("publishing progress: %w", err)
	}
	return nil
}
