// Package cdicron holds the side effects of a DataImportCron poll: reading
// the source's current digest, creating the DataVolume that imports it,
// waiting for the import, pointing the managed DataSource at the result and
// garbage-collecting old imports.
package cdicron

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Activity type names; constants so renaming a Go method never breaks a
// running history.
const (
	CheckSourceName     = "cdicron.CheckSource"
	EnsureImportName    = "cdicron.EnsureImport"
	WaitImportedName    = "cdicron.WaitImported"
	PointDataSourceName = "cdicron.PointDataSource"
	GarbageCollectName  = "cdicron.GarbageCollect"
)

// Labels and annotations, as upstream CDI names them.
const (
	// LabelDataImportCron marks the DataVolumes and the DataSource a
	// DataImportCron manages, with the cron's name as value.
	LabelDataImportCron = "cdi.kubevirt.io/dataImportCron"
	// AnnSourceDesiredDigest is the source digest a cron DataVolume imports.
	AnnSourceDesiredDigest = "cdi.kubevirt.io/storage.import.sourceDesiredDigest"
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

// ImportTarget is one digest's DataVolume of one cron; every step after
// CheckSource works on it.
type ImportTarget struct {
	Cron       CronRef `json:"cron"`
	DataVolume string  `json:"dataVolume"`
	Digest     string  `json:"digest"`
}

// Activities talk to the kube-apiserver and to the cron's image source.
type Activities struct {
	// Client must know the CDI kinds.
	Client client.Client
	// PollInterval is how often WaitImported re-reads the DataVolume; a
	// second when zero.
	PollInterval time.Duration
}

// CheckSource reads the source's current digest and tells whether the cron
// already serves it.
func (a *Activities) CheckSource(ctx context.Context, ref CronRef) (SourceState, error) {
	cron, err := a.cron(ctx, ref)
	if err != nil {
		return SourceState{}, err
	}
	digest, err := a.digest(ctx, cron)
	if err != nil {
		return SourceState{}, err
	}
	st := SourceState{Digest: digest, DataVolume: DataVolumeName(cron.Spec.ManagedDataSource, digest)}
	dv := &cdiv1.DataVolume{}
	if err := a.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: st.DataVolume}, dv); err != nil {
		if apierrors.IsNotFound(err) {
			return st, nil
		}
		return st, fmt.Errorf("reading DataVolume %s/%s: %w", ref.Namespace, st.DataVolume, err)
	}
	pointed, err := a.pointsAt(ctx, ref.Namespace, cron.Spec.ManagedDataSource, st.DataVolume)
	if err != nil {
		return st, err
	}
	st.UpToDate = dv.Status.Phase == cdiv1.Succeeded && pointed
	return st, nil
}

// pointsAt tells whether the DataSource's PVC source is the named claim.
func (a *Activities) pointsAt(ctx context.Context, ns, dataSource, claim string) (bool, error) {
	ds := &cdiv1.DataSource{}
	if err := a.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: dataSource}, ds); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading DataSource %s/%s: %w", ns, dataSource, err)
	}
	pvc := ds.Spec.Source.PVC
	return pvc != nil && pvc.Namespace == ns && pvc.Name == claim, nil
}

// cron reads the DataImportCron a poll belongs to. A deleted or recreated
// cron ends the poll for good: its schedule is being removed.
func (a *Activities) cron(ctx context.Context, ref CronRef) (*cdiv1.DataImportCron, error) {
	cron := &cdiv1.DataImportCron{}
	err := a.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, cron)
	if apierrors.IsNotFound(err) || (err == nil && (string(cron.UID) != ref.UID || cron.DeletionTimestamp != nil)) {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("DataImportCron %s/%s (uid %s) no longer exists", ref.Namespace, ref.Name, ref.UID), ErrTypeCronGone, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("reading DataImportCron %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	return cron, nil
}
