package cdicron

import (
	"context"
	"fmt"
	"maps"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/kube/cronimports"
)

// EnsureImport creates the DataVolume importing the target's digest from
// the cron's template, or adopts it when it already exists, so a retried
// activity or a repeated poll leaves one DataVolume.
func (a *Activities) EnsureImport(ctx context.Context, t cdi.ImportTarget) error {
	cron, err := a.cron(ctx, t.Cron)
	if err != nil {
		return err
	}
	dv := NewDataVolume(cron, t.DataVolume, t.Digest)
	err = a.Client.Create(ctx, dv)
	if err == nil || apierrors.IsAlreadyExists(err) {
		return nil
	}
	return fmt.Errorf("creating DataVolume %s/%s: %w", dv.Namespace, dv.Name, err)
}

// NewDataVolume is the cron's template as the DataVolume importing one
// digest: the cron's label, the digest and immediate binding annotated,
// and a registry URL pinned to the digest.
func NewDataVolume(cron *cdiv1.DataImportCron, name, digest string) *cdiv1.DataVolume {
	tmpl := cron.Spec.Template.DeepCopy()
	dv := &cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: cron.Namespace, Name: name,
			Labels: map[string]string{}, Annotations: map[string]string{},
		},
		Spec: tmpl.Spec,
	}
	maps.Copy(dv.Labels, tmpl.Labels)
	maps.Copy(dv.Annotations, tmpl.Annotations)
	dv.Labels[cdi.LabelDataImportCron] = cron.Name
	dv.Annotations[cdi.AnnSourceDesiredDigest] = digest
	dv.Annotations[cdi.AnnImmediateBinding] = "true"
	if r := dv.Spec.Source.Registry; r != nil && r.URL != nil {
		pinned := pinnedRegistryURL(*r.URL, digest)
		r.URL = &pinned
	}
	return dv
}

// WaitImported polls the target's DataVolume until it has Succeeded,
// heartbeating its phase and progress. A Failed import fails the poll for
// good: the same digest would fail the same way.
func (a *Activities) WaitImported(ctx context.Context, t cdi.ImportTarget) error {
	interval := a.PollInterval
	if interval == 0 {
		interval = time.Second
	}
	key := types.NamespacedName{Namespace: t.Cron.Namespace, Name: t.DataVolume}
	for {
		dv := &cdiv1.DataVolume{}
		if err := a.Client.Get(ctx, key, dv); err != nil {
			if apierrors.IsNotFound(err) {
				return temporal.NewNonRetryableApplicationError(fmt.Sprintf("DataVolume %s was deleted during its import", key), cdi.ErrTypeDataVolumeGone, nil)
			}
			return fmt.Errorf("reading DataVolume %s: %w", key, err)
		}
		switch dv.Status.Phase {
		case cdiv1.Succeeded:
			return nil
		case cdiv1.Failed:
			return temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("import into DataVolume %s failed: %s", key, runningMessage(dv)), cdi.ErrTypeImportFailed, nil)
		}
		activity.RecordHeartbeat(ctx, waitProgress{Phase: string(dv.Status.Phase), Progress: string(dv.Status.Progress)})
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for DataVolume %s (phase %s): %w", key, dv.Status.Phase, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// waitProgress is WaitImported's heartbeat.
type waitProgress struct {
	Phase    string `json:"phase"`
	Progress string `json:"progress"`
}

func runningMessage(dv *cdiv1.DataVolume) string {
	for _, c := range dv.Status.Conditions {
		if c.Type == cdiv1.DataVolumeRunning && c.Message != "" {
			return c.Message
		}
	}
	return "no reason given"
}

// PointDataSource makes the cron's managed DataSource serve the target's
// claim, creating the DataSource when it is missing. A DataSource that
// is not labelled for this cron is left alone, as upstream does.
func (a *Activities) PointDataSource(ctx context.Context, t cdi.ImportTarget) error {
	cron, err := a.cron(ctx, t.Cron)
	if err != nil {
		return err
	}
	want := cdiv1.DataSourceSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: cron.Namespace, Name: t.DataVolume}}
	ds := &cdiv1.DataSource{}
	key := types.NamespacedName{Namespace: cron.Namespace, Name: cron.Spec.ManagedDataSource}
	if err := a.Client.Get(ctx, key, ds); apierrors.IsNotFound(err) {
		ds = cronimports.DataSource(cron)
		ds.Spec.Source = want
		if err := a.Client.Create(ctx, ds); err != nil {
			return fmt.Errorf("creating DataSource %s: %w", key, err)
		}
		return nil
	} else if err != nil {
		return fmt.Errorf("reading DataSource %s: %w", key, err)
	}
	if owner := ds.Labels[cdi.LabelDataImportCron]; owner != cron.Name {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("DataSource %s is not managed by DataImportCron %s (its %s label is %q)", key, cron.Name, cdi.LabelDataImportCron, owner),
			cdi.ErrTypeDataSourceNotManaged, nil)
	}
	base := ds.DeepCopy()
	ds.Spec.Source = want
	if err := a.Client.Patch(ctx, ds, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("pointing DataSource %s at %s: %w", key, t.DataVolume, err)
	}
	return nil
}

// GarbageCollect deletes the cron's DataVolumes beyond spec.importsToKeep,
// oldest first, never the target's. It returns the names deleted.
func (a *Activities) GarbageCollect(ctx context.Context, t cdi.ImportTarget) ([]string, error) {
	cron, err := a.cron(ctx, t.Cron)
	if err != nil {
		return nil, err
	}
	if gc := cron.Spec.GarbageCollect; gc != nil && *gc == cdiv1.DataImportCronGarbageCollectNever {
		return nil, nil
	}
	dvs, err := cronimports.List(ctx, a.Client, cron)
	if err != nil {
		return nil, err
	}
	keep := cdi.DefaultImportsToKeep
	if k := cron.Spec.ImportsToKeep; k != nil && *k >= 0 {
		keep = int(*k)
	}
	var deleted []string
	for _, name := range Outdated(dvs, keep, t.DataVolume) {
		dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: cron.Namespace, Name: name}}
		if err := a.Client.Delete(ctx, dv); err != nil && !apierrors.IsNotFound(err) {
			return deleted, fmt.Errorf("deleting outdated DataVolume %s/%s: %w", cron.Namespace, name, err)
		}
		deleted = append(deleted, name)
	}
	return deleted, nil
}

// Outdated chooses which DataVolumes to delete so that keep remain,
// counting current, which is never chosen: the newest others by creation
// time stay, the rest go, oldest first. Names break creation-time ties.
func Outdated(dvs []cdiv1.DataVolume, keep int, current string) []string {
	others := make([]cdiv1.DataVolume, 0, len(dvs))
	for _, dv := range dvs {
		if dv.Name != current && dv.DeletionTimestamp == nil {
			others = append(others, dv)
		}
	}
	cronimports.SortNewestFirst(others)
	stay := max(keep-1, 0)
	if len(others) <= stay {
		return nil
	}
	var out []string
	for i := len(others) - 1; i >= stay; i-- {
		out = append(out, others[i].Name)
	}
	return out
}
