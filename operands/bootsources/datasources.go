package bootsources

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// TakeOver decides whether the cron managing m may keep it current, given
// the DataSource found in the cluster (nil when there is none) and a way
// to ask whether the claim m would point at by default (m's name, in m's
// namespace) exists; it is asked only when needed.
//
// Without a cron there is nothing to take over with. A DataSource carrying
// DataImportCronLabel has opted in, whatever it points at. Otherwise a
// claim of the DataSource's name means someone provided the boot image by
// hand, and it is left to them; SSP also looks at the Ready condition of
// a DataSource pointing at that claim, but compares the claim references
// by identity, so that shortcut never applies and the claim alone
// decides.
func TakeOver(m ManagedDataSource, found *cdiv1beta1.DataSource, pvcExists func() (bool, error)) (bool, error) {
	if m.Cron == "" {
		return false, nil
	}
	if found != nil {
		if _, ok := found.Labels[DataImportCronLabel]; ok {
			return true, nil
		}
	}
	exists, err := pvcExists()
	if err != nil {
		return false, err
	}
	return !exists, nil
}

// DataSource is the object to write for m: found updated, or a new
// DataSource when found is nil. found is not modified.
//
// A DataSource taken over keeps whatever source CDI gave it (a new one has
// none until the cron's first import) and is labelled with its cron, which
// CDI follows. Any other one points at the claim of its own name, for
// someone to provide, carries the app labels, and loses the cron label so
// that CDI leaves it alone.
func (p Plan) DataSource(m ManagedDataSource, takeOver bool, found *cdiv1beta1.DataSource) *cdiv1beta1.DataSource {
	ds := &cdiv1beta1.DataSource{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace}}
	if found != nil {
		ds = found.DeepCopy()
	}
	ds.SetGroupVersionKind(cdiv1beta1.SchemeGroupVersion.WithKind("DataSource"))
	if takeOver {
		p.owner.annotate(ds)
		if ds.Labels == nil {
			ds.Labels = map[string]string{}
		}
		// Restored on every pass: CDI stops following a DataSource that
		// lost it.
		ds.Labels[DataImportCronLabel] = m.Cron
		return ds
	}
	p.owner.mark(ds)
	delete(ds.Labels, DataImportCronLabel)
	ds.Spec = cdiv1beta1.DataSourceSpec{Source: cdiv1beta1.DataSourceSource{
		PVC: &cdiv1beta1.DataVolumeSourcePVC{Name: m.Name, Namespace: m.Namespace},
	}}
	return ds
}

// StaleDataSources are the DataSources among existing that this SSP
// resource owns in the plan's namespace but no longer wants, for deletion.
func (p Plan) StaleDataSources(existing []cdiv1beta1.DataSource) []cdiv1beta1.DataSource {
	var stale []cdiv1beta1.DataSource
	for _, ds := range existing {
		if ds.Namespace != p.Namespace.Name || !p.Owns(&ds) {
			continue
		}
		wanted := slices.ContainsFunc(p.DataSources, func(m ManagedDataSource) bool { return m.Name == ds.Name })
		if !wanted {
			stale = append(stale, ds)
		}
	}
	return stale
}
