package cdi

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/activities/cdicron"
)

// PollCronWorkflowName is the workflow type a DataImportCron's schedule
// starts on every tick.
const PollCronWorkflowName = "cdi.PollDataImportCron"

// Poll steps, published as the memo's step.
const (
	CronStepChecking  = "CheckingSource"
	CronStepUpToDate  = "UpToDate"
	CronStepImporting = "Importing"
	CronStepPointing  = "UpdatingDataSource"
	CronStepCollect   = "GarbageCollecting"
	CronStepCompleted = "Completed"
)

// PollCronInput names the DataImportCron a schedule polls for.
type PollCronInput = cdicron.CronRef

// CronProgress is the poll's progress memo (ProgressMemoKey).
type CronProgress struct {
	Step       string `json:"step"`
	Digest     string `json:"digest,omitempty"`
	DataVolume string `json:"dataVolume,omitempty"`
	// Deleted are the outdated DataVolumes garbage-collected.
	Deleted []string `json:"deleted,omitempty"`
}

// PollDataImportCron checks the cron's source once. A new digest gets its
// own DataVolume; once it has imported, the managed DataSource points at
// it and imports beyond importsToKeep are deleted. A digest already
// served does nothing. A failed import fails the poll and leaves the
// DataSource on the last good import; being interrupted leaves the
// DataVolume for the next poll to adopt, so there is nothing to clean up.
func PollDataImportCron(ctx workflow.Context, in PollCronInput) (CronProgress, error) {
	p := CronProgress{Step: CronStepChecking}
	if err := publishCron(ctx, p); err != nil {
		return p, err
	}
	kube := workflow.WithActivityOptions(ctx, cronKubeOptions())
	var src cdicron.SourceState
	if err := workflow.ExecuteActivity(kube, cdicron.CheckSourceName, in).Get(kube, &src); err != nil {
		return p, fmt.Errorf("checking the source of DataImportCron %s/%s: %w", in.Namespace, in.Name, err)
	}
	p.Digest, p.DataVolume = src.Digest, src.DataVolume
	if src.UpToDate {
		p.Step = CronStepUpToDate
		return p, publishCron(ctx, p)
	}
	target := cdicron.ImportTarget{Cron: in, DataVolume: src.DataVolume, Digest: src.Digest}
	if err := importDigest(ctx, kube, target, &p); err != nil {
		return p, err
	}
	p.Step = CronStepCompleted
	return p, publishCron(ctx, p)
}

// importDigest creates the digest's DataVolume, waits for it, points the
// DataSource at it and collects old imports.
func importDigest(ctx, kube workflow.Context, t cdicron.ImportTarget, p *CronProgress) error {
	p.Step = CronStepImporting
	if err := publishCron(ctx, *p); err != nil {
		return err
	}
	if err := workflow.ExecuteActivity(kube, cdicron.EnsureImportName, t).Get(kube, nil); err != nil {
		return fmt.Errorf("creating DataVolume %s: %w", t.DataVolume, err)
	}
	wait := workflow.WithActivityOptions(ctx, cronWaitOptions())
	if err := workflow.ExecuteActivity(wait, cdicron.WaitImportedName, t).Get(wait, nil); err != nil {
		return fmt.Errorf("importing DataVolume %s: %w", t.DataVolume, err)
	}
	p.Step = CronStepPointing
	if err := publishCron(ctx, *p); err != nil {
		return err
	}
	if err := workflow.ExecuteActivity(kube, cdicron.PointDataSourceName, t).Get(kube, nil); err != nil {
		return fmt.Errorf("pointing the DataSource at %s: %w", t.DataVolume, err)
	}
	p.Step = CronStepCollect
	if err := publishCron(ctx, *p); err != nil {
		return err
	}
	if err := workflow.ExecuteActivity(kube, cdicron.GarbageCollectName, t).Get(kube, &p.Deleted); err != nil {
		return fmt.Errorf("garbage-collecting old imports: %w", err)
	}
	return nil
}

// cronNonRetryable are the activity failures no retry of this poll fixes.
var cronNonRetryable = []string{
	cdicron.ErrTypeCronGone, cdicron.ErrTypeUnsupportedSource, cdicron.ErrTypeImportFailed,
	cdicron.ErrTypeDataVolumeGone, cdicron.ErrTypeDataSourceNotManaged,
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

func publishCron(ctx workflow.Context, p CronProgress) error {
	if err := workflow.UpsertMemo(ctx, map[string]interface{}{ProgressMemoKey: p}); err != nil {
		return fmt.Errorf("publishing progress: %w", err)
	}
	return nil
}

func pollCronOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: PollCronWorkflowName}
}

// RegisterCronActivities adds the DataImportCron poll's activities to the
// control worker.
func RegisterCronActivities(r ActivityRegistry, a *cdicron.Activities) {
	r.RegisterActivityWithOptions(a.CheckSource, activity.RegisterOptions{Name: cdicron.CheckSourceName})
	r.RegisterActivityWithOptions(a.EnsureImport, activity.RegisterOptions{Name: cdicron.EnsureImportName})
	r.RegisterActivityWithOptions(a.WaitImported, activity.RegisterOptions{Name: cdicron.WaitImportedName})
	r.RegisterActivityWithOptions(a.PointDataSource, activity.RegisterOptions{Name: cdicron.PointDataSourceName})
	r.RegisterActivityWithOptions(a.GarbageCollect, activity.RegisterOptions{Name: cdicron.GarbageCollectName})
}
