package ssptasks

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// reportTimeout bounds one report, so a slow frontend does not hold the
// task back for long.
const reportTimeout = 5 * time.Second

// started reports to the run's workflow that an attempt of the task runs;
// the workflow publishes it in the memo the CustomRun's controller reads.
func (a *Activities) started(ctx context.Context, task string) {
	a.report(ctx, ssp.ActivityProgress{Name: task, Attempt: activity.GetInfo(ctx).Attempt})
}

// ended reports a failed attempt, in the words Temporal records, so that
// the retry shows why; a success or a cancellation reports nothing, the
// workflow's next step says it.
func (a *Activities) ended(ctx context.Context, task string, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	a.report(ctx, ssp.ActivityProgress{Name: task, Attempt: activity.GetInfo(ctx).Attempt, Failure: failureMessage(err)})
}

// report signals p to the activity's own workflow. Reports are notes, not
// the record: one that fails is logged, and the workflow's outcome still
// decides.
func (a *Activities) report(ctx context.Context, p ssp.ActivityProgress) {
	if a.Signals == nil {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, reportTimeout)
	defer cancel()
	if err := ssp.ProgressSignal.SendFromActivity(sctx, a.Signals, p); err != nil {
		activity.GetLogger(ctx).Warn("reporting the attempt to the workflow", "error", err)
	}
}

// failureMessage is err's message as Temporal records an activity's
// failure: an application error's own message, else the error's text.
func failureMessage(err error) string {
	if app, ok := err.(*temporal.ApplicationError); ok {
		return app.Message()
	}
	return err.Error()
}
