package bootsources

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
)

// cronsByDataSource turns the templates into crons keyed by the DataSource
// each keeps current. A template without a namespace goes to namespace;
// of two templates managing one DataSource the later wins, as in SSP.
func cronsByDataSource(dicts []sspv1beta3.DataImportCronTemplate, namespace string, o ownerRef) map[types.NamespacedName]cdiv1beta1.DataImportCron {
	out := make(map[types.NamespacedName]cdiv1beta1.DataImportCron, len(dicts))
	for i := range dicts {
		c := dicts[i].AsDataImportCron()
		cron := c.DeepCopy()
		if cron.Namespace == "" {
			cron.Namespace = namespace
		}
		// The list describes the image for per-architecture crons; CDI has
		// no use for it.
		delete(cron.Annotations, ArchitecturesAnnotation)
		o.mark(cron)
		cron.SetGroupVersionKind(cdiv1beta1.SchemeGroupVersion.WithKind("DataImportCron"))
		out[types.NamespacedName{Namespace: cron.Namespace, Name: cron.Spec.ManagedDataSource}] = *cron
	}
	return out
}

// DataImportCrons are the crons to keep: all of Crons except those
// managing one of the plan's DataSources that TakeOver declined.
// takenOver holds TakeOver's answer per DataSource name; a DataSource
// missing from it counts as declined. Crons managing other DataSources
// (custom boot sources) are always kept: CDI creates their DataSources.
func (p Plan) DataImportCrons(takenOver map[string]bool) []cdiv1beta1.DataImportCron {
	var out []cdiv1beta1.DataImportCron
	for _, c := range p.Crons {
		ds := c.Spec.ManagedDataSource
		planned := c.Namespace == p.Namespace.Name &&
			slices.ContainsFunc(p.DataSources, func(m ManagedDataSource) bool { return m.Name == ds })
		if planned && !takenOver[ds] {
			continue
		}
		out = append(out, *c.DeepCopy())
	}
	return out
}

// CronMustBeReplaced tells whether an existing cron's spec differs from the
// desired one. SSP then deletes the cron rather than updating it, and
// creates it anew on the next pass, so that CDI starts the new schedule
// and source from a clean state.
func CronMustBeReplaced(found, desired *cdiv1beta1.DataImportCron) bool {
	return !equality.Semantic.DeepEqual(found.Spec, desired.Spec)
}

// StaleDataImportCrons are the crons among existing, in any namespace,
// that this SSP resource owns but that are not among kept (what
// DataImportCrons returned), for deletion.
func (p Plan) StaleDataImportCrons(existing, kept []cdiv1beta1.DataImportCron) []cdiv1beta1.DataImportCron {
	var stale []cdiv1beta1.DataImportCron
	for _, c := range existing {
		if !p.Owns(&c) {
			continue
		}
		wanted := slices.ContainsFunc(kept, func(k cdiv1beta1.DataImportCron) bool {
			return k.Namespace == c.Namespace && k.Name == c.Name
		})
		if !wanted {
			stale = append(stale, c)
		}
	}
	return stale
}
