package ssp

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// progressRelayChange versions the relay of the task activity's reports
// into the memo. Runs recorded before it hold no marker and no signals;
// they replay DefaultVersion, which publishes only the steps.
const progressRelayChange = "progress-relay"

// progress is a run's Progress, answered by query and published in the
// memo the controller reads.
type progress struct {
	p ssp.Progress
	// relays tells that this run publishes the task activity's reports;
	// a DefaultVersion run keeps the memo's recorded shape.
	relays bool
}

// newProgress registers the query and decides, once and before the first
// publish, whether this run relays the activity's reports; a relaying run
// starts the relay.
func newProgress(ctx workflow.Context) (*progress, error) {
	pr := &progress{}
	if err := workflow.SetQueryHandler(ctx, ssp.ProgressQuery, func() (ssp.Progress, error) { return pr.p, nil }); err != nil {
		return nil, fmt.Errorf("registering the progress query: %w", err)
	}
	if workflow.GetVersion(ctx, progressRelayChange, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		pr.relays = true
		workflow.Go(ctx, pr.relay)
	}
	return pr, nil
}

// task publishes that the named task runs. A relaying run's task starts
// with an activity that has not reported yet: a non-nil Activity tells
// the controller that this run's memo carries the attempts.
func (pr *progress) task(ctx workflow.Context, name string) error {
	p := ssp.Progress{Step: name, Message: "Running task " + name}
	if pr.relays {
		p.Activity = &ssp.ActivityProgress{Name: name}
	}
	return pr.publish(ctx, p)
}

// completed publishes that the run is done.
func (pr *progress) completed(ctx workflow.Context, message string) error {
	return pr.publish(ctx, ssp.Progress{Step: ssp.StepCompleted, Message: message})
}

func (pr *progress) publish(ctx workflow.Context, p ssp.Progress) error {
	pr.p = p
	if err := workflow.UpsertMemo(ctx, map[string]interface{}{ssp.ProgressMemoKey: p}); err != nil {
		return fmt.Errorf("publishing progress: %w", err)
	}
	return nil
}

// relay publishes each report of the running task's activity; reports
// that arrived together are folded into one upsert. A report of a task
// the run has moved past (sent just before its activity returned) is
// dropped.
func (pr *progress) relay(ctx workflow.Context) {
	ch := ssp.ProgressSignal.Channel(ctx)
	for {
		if !ch.ReceiveBurst(ctx, pr.fold) {
			continue
		}
		if err := pr.publish(ctx, pr.p); err != nil {
			workflow.GetLogger(ctx).Warn("publishing the task's attempt", "error", err)
		}
	}
}

// fold takes one report into the memo and tells whether it changed it.
func (pr *progress) fold(r ssp.ActivityProgress) bool {
	if pr.p.Activity == nil || r.Name != pr.p.Step {
		return false
	}
	pr.p.Activity = next(*pr.p.Activity, r)
	return true
}

// next is the activity's attempt after report r, given what the memo
// showed before (was). A failed attempt is shown as Temporal shows a
// retried activity: the next attempt, with the failure as LastFailure,
// which its own reports then keep. An attempt that starts without its
// predecessor having reported a failure had a predecessor that was lost.
func next(was, r ssp.ActivityProgress) *ssp.ActivityProgress {
	if r.Failure != "" {
		return &ssp.ActivityProgress{Name: r.Name, Attempt: r.Attempt + 1, LastFailure: r.Failure}
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
