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

	"github.com/virtflow/virtflow/contracts/cdi"
)

// Activities talk to the kube-apiserver and to the cron's image source.
type Activities struct {
	// Client must know the CDI kinds.
	Client client.Client
	// PollInterval is how often WaitImported re-reads the DataVolume; a
	// second when zero.
	PollInterval time.Duration
}

var _ cdi.CronActivities = (*Activities)(nil)

// CheckSource reads the source's current digest and tells whether the cron
// already serves it.
func (a *Activities) CheckSource(ctx context.Context, ref cdi.CronRef) (cdi.SourceState, error) {
	cron, err := a.cron(ctx, ref)
	if err != nil {
		return cdi.SourceState{}, err
	}
	digest, err := a.digest(ctx, cron)
	if err != nil {
		return cdi.SourceState{}, err
	}
	st := cdi.SourceState{Digest: digest, DataVolume: DataVolumeName(cron.Spec.ManagedDataSource, digest)}
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
func (a *Activities) cron(ctx context.Context, ref cdi.CronRef) (*cdiv1.DataImportCron, error) {
	cron := &cdiv1.DataImportCron{}
	err := a.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, cron)
	if apierrors.IsNotFound(err) || (err == nil && (string(cron.UID) != ref.UID || cron.DeletionTimestamp != nil)) {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("DataImportCron %s/%s (uid %s) no longer exists", ref.Namespace, ref.Name, ref.UID), cdi.ErrTypeCronGone, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("reading DataImportCron %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	return cron, nil
}
