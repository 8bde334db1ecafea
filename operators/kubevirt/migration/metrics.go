package migration

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// Upstream virt-controller's migration metrics, under its names.
var (
	phaseGauges = map[string]*prometheus.Desc{
		"pending":    gauge("kubevirt_vmi_migrations_in_pending_phase", "Number of current pending migrations."),
		"scheduling": gauge("kubevirt_vmi_migrations_in_scheduling_phase", "Number of current scheduling migrations."),
		"unset":      gauge("kubevirt_vmi_migrations_in_unset_phase", "Number of current unset migrations. These are pending items the virt-controller hasn’t processed yet from the queue."),
		"running":    gauge("kubevirt_vmi_migrations_in_running_phase", "Number of current running migrations."),
	}
	succeededDesc = prometheus.NewDesc("kubevirt_vmi_migration_succeeded", "Indicates if the VMI migration succeeded.",
		[]string{"vmi", "vmim", "namespace"}, nil)
	failedDesc = prometheus.NewDesc("kubevirt_vmi_migration_failed", "Indicates if the VMI migration failed.",
		[]string{"vmi", "vmim", "namespace"}, nil)
)

func gauge(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }

// Collector reports the VMIMs as upstream's virt-controller does, read
// from the manager's cache at each scrape.
type Collector struct {
	Reader crclient.Reader
}

// Describe sends the metrics' descriptions.
func (c Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range phaseGauges {
		ch <- d
	}
	ch <- succeededDesc
	ch <- failedDesc
}

// Collect counts the migrations by phase and marks each final one.
func (c Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	if err := c.Reader.List(ctx, list); err != nil {
		ch <- prometheus.NewInvalidMetric(phaseGauges["running"], err)
		return
	}
	counts := map[string]float64{"pending": 0, "scheduling": 0, "unset": 0, "running": 0}
	for i := range list.Items {
		m := &list.Items[i]
		if bucket, ok := phaseBucket(m.Status.Phase); ok {
			counts[bucket]++
			continue
		}
		desc := failedDesc
		if m.Status.Phase == kubevirtv1.MigrationSucceeded {
			desc = succeededDesc
		}
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, 1, m.Spec.VMIName, m.Name, m.Namespace)
	}
	for bucket, n := range counts {
		ch <- prometheus.MustNewConstMetric(phaseGauges[bucket], prometheus.GaugeValue, n)
	}
}

// phaseBucket is the gauge an unfinished phase counts in; false for the
// final ones (and, as upstream's default branch, any other).
func phaseBucket(p kubevirtv1.VirtualMachineInstanceMigrationPhase) (string, bool) {
	switch p {
	case kubevirtv1.MigrationPhaseUnset:
		return "unset", true
	case kubevirtv1.MigrationPending:
		return "pending", true
	case kubevirtv1.MigrationScheduling:
		return "scheduling", true
	case kubevirtv1.MigrationScheduled, kubevirtv1.MigrationPreparingTarget, kubevirtv1.MigrationTargetReady, kubevirtv1.MigrationRunning:
		return "running", true
	}
	return "", false
}
