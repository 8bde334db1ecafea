package cdi

import (
	"context"
	"time"

	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
)

// DataImportCron activity type names, registered on the control task
// queue.
const (
	CheckSourceName     = "cdicron.CheckSource"
	RecordPollName      = "cdicron.RecordPoll"
	EnsureImportName    = "cdicron.EnsureImport"
	WaitImportedName    = "cdicron.WaitImported"
	PointDataSourceName = "cdicron.PointDataSource"
	GarbageCollectName  = "cdicron.GarbageCollect"
)

// The DataImportCron activities, typed; see CronActivities for what each
// does.
var (
	CheckSource     = typed.Activity[CronRef, SourceState]{Name: CheckSourceName}
	RecordPoll      = typed.VoidActivity[PollRecord]{Name: RecordPollName}
	EnsureImport    = typed.VoidActivity[ImportTarget]{Name: EnsureImportName}
	WaitImported    = typed.VoidActivity[ImportTarget]{Name: WaitImportedName}
	PointDataSource = typed.VoidActivity[ImportTarget]{Name: PointDataSourceName}
	GarbageCollect  = typed.Activity[ImportTarget, []string]{Name: GarbageCollectName}
)

// Poll steps, published as the memo's step.
const (
	CronStepChecking  = "CheckingSource"
	CronStepUpToDate  = "UpToDate"
	CronStepImporting = "Importing"
	CronStepPointing  = "UpdatingDataSource"
	CronStepCollect   = "GarbageCollecting"
	CronStepCompleted = "Completed"
)

// Labels and annotations, as upstream CDI names them.
const (
	// LabelDataImportCron marks the DataVolumes and the DataSource a
	// DataImportCron manages, with the cron's name as value.
	LabelDataImportCron = "cdi.kubevirt.io/dataImportCron"
	// AnnSourceDesiredDigest is the source digest a cron DataVolume
	// imports, and on the cron the digest its last poll found.
	AnnSourceDesiredDigest = "cdi.kubevirt.io/storage.import.sourceDesiredDigest"
	// AnnLastCronTime is when the cron's source was last polled (RFC
	// 3339); the cron's status.lastExecutionTimestamp follows it.
	AnnLastCronTime = "cdi.kubevirt.io/storage.import.lastCronTime"
	// AnnImmediateBinding makes a cron DataVolume import without waiting
	// for a consumer, since golden images have none until a VM clones them.
	AnnImmediateBinding = "cdi.kubevirt.io/storage.bind.immediate.requested"
)

// DefaultImportsToKeep is upstream's spec.importsToKeep default.
const DefaultImportsToKeep = 3

// Non-retryable error types: what no retry of the same poll can fix.
const (
	// ErrTypeCronGone: the DataImportCron was deleted or recreated.
	ErrTypeCronGone = "DataImportCronGone"
	// ErrTypeUnsupportedSource: the template has no http or registry URL.
	ErrTypeUnsupportedSource = "DataImportCronUnsupportedSource"
	// ErrTypeImportFailed: the cron's DataVolume ended Failed.
	ErrTypeImportFailed = "DataImportCronImportFailed"
	// ErrTypeDataVolumeGone: the DataVolume being waited for was deleted.
	ErrTypeDataVolumeGone = "DataImportCronDataVolumeGone"
	// ErrTypeDataSourceNotManaged: the managed DataSource exists but belongs
	// to no cron or another one, which upstream leaves alone.
	ErrTypeDataSourceNotManaged = "DataImportCronDataSourceNotManaged"
)

// CronRef names one DataImportCron; the UID tells a recreated cron of the
// same name apart, whose schedule is a different one.
type CronRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
}

// PollCronInput names the DataImportCron a schedule polls for.
type PollCronInput = CronRef

// SourceState is what a poll found.
type SourceState struct {
	// Digest identifies the source's current content: the image digest of
	// a registry source, the ETag or Last-Modified of an http one.
	Digest string `json:"digest"`
	// DataVolume is the name of the DataVolume that imports Digest.
	DataVolume string `json:"dataVolume"`
	// UpToDate: that DataVolume has Succeeded and the DataSource points
	// at it, so the poll has nothing to do.
	UpToDate bool `json:"upToDate"`
}

// PollRecord is what a poll writes on its cron when it ends: when it
// polled and, when the source answered, the digest it found.
type PollRecord struct {
	Cron   CronRef   `json:"cron"`
	Time   time.Time `json:"time"`
	Digest string    `json:"digest,omitempty"`
}

// ImportTarget is one digest's DataVolume of one cron; every step after
// CheckSource works on it.
type ImportTarget struct {
	Cron       CronRef `json:"cron"`
	DataVolume string  `json:"dataVolume"`
	Digest     string  `json:"digest"`
}

// CronProgress is the poll's progress memo (ProgressMemoKey).
type CronProgress struct {
	Step       string `json:"step"`
	Digest     string `json:"digest,omitempty"`
	DataVolume string `json:"dataVolume,omitempty"`
	// Deleted are the outdated DataVolumes garbage-collected.
	Deleted []string `json:"deleted,omitempty"`
}

// CronActivities are the DataImportCron poll's activities, called by type
// name on the control task queue.
type CronActivities interface {
	// CheckSource reads the source's current digest and tells whether the
	// cron already serves it.
	CheckSource(ctx context.Context, ref CronRef) (SourceState, error)
	// RecordPoll annotates the cron with the poll's time and digest.
	RecordPoll(ctx context.Context, rec PollRecord) error
	// EnsureImport creates or adopts the target's DataVolume.
	EnsureImport(ctx context.Context, t ImportTarget) error
	// WaitImported returns once the target's DataVolume has Succeeded.
	WaitImported(ctx context.Context, t ImportTarget) error
	// PointDataSource makes the managed DataSource serve the target.
	PointDataSource(ctx context.Context, t ImportTarget) error
	// GarbageCollect deletes imports beyond importsToKeep and returns
	// their names.
	GarbageCollect(ctx context.Context, t ImportTarget) ([]string, error)
}

// RegisterCronActivities binds each poll activity to its implementation,
// through the typed descriptors so that a signature that drifted from the
// workflow's calls does not compile.
func RegisterCronActivities(r registry.Activities, a CronActivities) {
	typed.RegisterActivities(r,
		CheckSource.Bind(a.CheckSource),
		RecordPoll.Bind(a.RecordPoll),
		EnsureImport.Bind(a.EnsureImport),
		WaitImported.Bind(a.WaitImported),
		PointDataSource.Bind(a.PointDataSource),
		GarbageCollect.Bind(a.GarbageCollect),
	)
}
