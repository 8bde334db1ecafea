package handler

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/node/libvirt"
)

// A running copy's job, as upstream's virt-handler exports it from the
// source node, per VMI.
var (
	migrationLabels = []string{"namespace", "name", "node"}
	migrationTotal  = migrationGauge("kubevirt_vmi_migration_data_bytes_total", "The total Guest OS data to be migrated to the new VM.")
	migrationLeft   = migrationGauge("kubevirt_vmi_migration_data_remaining_bytes", "The remaining guest OS data to be migrated to the new VM.")
	migrationDone   = migrationGauge("kubevirt_vmi_migration_data_processed_bytes", "The total Guest OS data processed and migrated to the new VM.")
	migrationDirty  = migrationGauge("kubevirt_vmi_migration_dirty_memory_rate_bytes", "The rate of memory being dirty in the Guest OS.")
	migrationRate   = migrationGauge("kubevirt_vmi_migration_memory_transfer_rate_bytes", "The rate at which the memory is being transferred.")
	migrationGauges = []*prometheus.GaugeVec{migrationTotal, migrationLeft, migrationDone, migrationDirty, migrationRate}
)

func migrationGauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, migrationLabels)
}

func init() {
	for _, g := range migrationGauges {
		metrics.Registry.MustRegister(g)
	}
}

// reportCopy publishes a running copy's job.
func reportCopy(req virt.NodeRequest, node string, p libvirt.JobProgress) {
	l := []string{req.VMI.Namespace, req.VMI.Name, node}
	migrationTotal.WithLabelValues(l...).Set(float64(p.DataTotal))
	migrationLeft.WithLabelValues(l...).Set(float64(p.DataRemaining))
	migrationDone.WithLabelValues(l...).Set(float64(p.DataProcessed))
	migrationDirty.WithLabelValues(l...).Set(float64(p.MemoryDirtyRate))
	migrationRate.WithLabelValues(l...).Set(float64(p.MemoryBps))
}

// forgetCopy drops the series of a copy that ended.
func forgetCopy(req virt.NodeRequest, node string) {
	for _, g := range migrationGauges {
		g.DeleteLabelValues(req.VMI.Namespace, req.VMI.Name, node)
	}
}
