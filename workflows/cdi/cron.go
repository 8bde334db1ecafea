package cdi

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// recordPollChange versions the poll's RecordPoll step. Polls that started
// before it existed replay without it (workflow.DefaultVersion).
const recordPollChange = "record-poll-on-cron"

// PollDataImportCron checks the cron's source once and records the poll on
// the cron (its time and the digest found, as upstream's lastCronTime and
// sourceDesiredDigest annotations), which also wakes the cron's reconciler.
// A new digest gets its own DataVolume; once it has imported, the managed
// DataSource points at it and imports beyond importsToKeep are deleted. A
// digest already served does nothing. A failed import fails the poll and
// leaves the DataSource on the last good import; being interrupted leaves
// the DataVolume for the next poll to adopt, so there is nothing to clean
// up.
func PollDataImportCron(ctx workflow.Context, in cdi.PollCronInput) (cdi.CronProgress, error) {
	record := workflow.GetVersion(ctx, recordPollChange, workflow.DefaultVersion, 1) >= 1
	polled := workflow.Now(ctx)
	p := cdi.CronProgress{Step: cdi.CronStepChecking}
	if err := publishCron(ctx, p); err != nil {
		return p, err
	}
	kube := workflow.WithActivityOptions(ctx, cronKubeOptions())
	src, err := cdi.CheckSource.Execute(kube, in)
	if err != nil {
		err = fmt.Errorf("checking the source of DataImportCron %s/%s: %w", in.Namespace, in.Name, err)
	}
	if record {
		// A failed check is recorded too: the poll happened, and the
		// write is what shows its failure on the cron promptly.
		rec := cdi.PollRecord{Cron: in, Time: polled, Digest: src.Digest}
		if rerr := cdi.RecordPoll.Execute(kube, rec); rerr != nil {
			err = errors.Join(err, fmt.Errorf("recording the poll on DataImportCron %s/%s: %w", in.Namespace, in.Name, rerr))
		}
	}
	if err != nil {
		return p, err
	}
	p.Digest, p.DataVolume = src.Digest, src.DataVolume
	if src.UpToDate {
		p.Step = cdi.CronStepUpToDate
		return p, publishCron(ctx, p)
	}
	target := cdi.ImportTarget{Cron: in, DataVolume: src.DataVolume, Digest: src.Digest}
	if err := importDigest(ctx, kube, target, &p); err != nil {
		return p, err
	}
	p.Step = cdi.CronStepCompleted
	return p, publishCron(ctx, p)
}

// importDigest creates the digest's DataVolume, waits for it, points the
// DataSource at it and collects old imports.
func importDigest(ctx, kube workflow.Context, t cdi.ImportTarget, p *cdi.CronProgress) error {
	p.Step = cdi.CronStepImporting
	if err := publishCron(ctx, *p); err != nil {
		return err
	}
	if err := cdi.EnsureImport.Execute(kube, t); err != nil {
		return fmt.Errorf("creating DataVolume %s: %w", t.DataVolume, err)
	}
	wait := workflow.WithActivityOptions(ctx, cronWaitOptions())
	if err := cdi.WaitImported.Execute(wait, t); err != nil {
		return fmt.Errorf("importing DataVolume %s: %w", t.DataVolume, err)
	}
	p.Step = cdi.CronStepPointing
	if err := publishCron(ctx, *p); err != nil {
		return err
	}
	if err := cdi.PointDataSource.Execute(kube, t); err != nil {
		return fmt.Errorf("pointing the DataSource at %s: %w", t.DataVolume, err)
	}
	p.Step = cdi.CronStepCollect
	if err := publishCron(ctx, *p); err != nil {
		return err
	}
	deleted, err := cdi.GarbageCollect.Execute(kube, t)
	if err != nil {
		return fmt.Errorf("garbage-collecting old imports: %w", err)
	}
	p.Deleted = deleted
	return nil
}

// cronNonRetryable are the activity failures no retry of this poll fixes.
var cronNonRetryable = []string{
	cdi.ErrTypeCronGone, cdi.ErrTypeUnsupportedSource, cdi.ErrTypeImportFailed,
	cdi.ErrTypeDataVolumeGone, cdi.ErrTypeDataSourceNotManaged,
}

// cronKubeOptions give up after a few attempts: a source or API that stays
// down fails this poll, and the schedule's next tick tries again, rather
// than one poll blocking every later tick.
func cronKubeOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 15 * time.Second,
			MaximumAttempts: 5, NonRetryableErrorTypes: cronNonRetryable,
		},
	}
}

// cronWaitOptions last as long as an import may; the heartbeat timeout
// notices a lost worker and a new attempt resumes the wait.
func cronWaitOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 24 * time.Hour,
		HeartbeatTimeout:    30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
			NonRetryableErrorTypes: cronNonRetryable,
		},
	}
}

func publishCron(ctx workflow.Context, p cdi.CronProgress) error {
	if err := workflow.UpsertMemo(ctx, map[string]interface{}{cdi.ProgressMemoKey: p}); err != nil {
		return fmt.Errorf("publishing progress: %w", err)
	}
	return nil
}
