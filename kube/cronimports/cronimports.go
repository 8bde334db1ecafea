// Package cronimports finds and shapes what a DataImportCron manages: the
// DataVolumes it created, found by its label, and its DataSource.
package cronimports

import (
	"context"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/cdi"
)

// DataSource is the empty DataSource a cron manages.
func DataSource(cron *cdiv1.DataImportCron) *cdiv1.DataSource {
	return &cdiv1.DataSource{ObjectMeta: metav1.ObjectMeta{
		Namespace: cron.Namespace, Name: cron.Spec.ManagedDataSource,
		Labels: map[string]string{cdi.LabelDataImportCron: cron.Name},
	}}
}

// List returns the DataVolumes a cron created.
func List(ctx context.Context, c client.Reader, cron *cdiv1.DataImportCron) ([]cdiv1.DataVolume, error) {
	list := &cdiv1.DataVolumeList{}
	if err := c.List(ctx, list, client.InNamespace(cron.Namespace), client.MatchingLabels{cdi.LabelDataImportCron: cron.Name}); err != nil {
		return nil, fmt.Errorf("listing DataVolumes of DataImportCron %s/%s: %w", cron.Namespace, cron.Name, err)
	}
	return list.Items, nil
}

// SortNewestFirst orders DataVolumes by creation time, newest first, and
// by name where created in the same second.
func SortNewestFirst(dvs []cdiv1.DataVolume) {
	sort.SliceStable(dvs, func(i, j int) bool {
		ti, tj := dvs[i].CreationTimestamp, dvs[j].CreationTimestamp
		if !ti.Equal(&tj) {
			return tj.Before(&ti)
		}
		return dvs[i].Name > dvs[j].Name
	})
}
