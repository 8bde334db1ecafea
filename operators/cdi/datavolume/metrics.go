package datavolume

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Progress gauges under CDI's metric names, per DataVolume UID (CDI labels
// them by the importer's owner UID).
var (
	importProgress = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kubevirt_cdi_import_progress_total",
		Help: "The import progress in percentage",
	}, []string{"ownerUID"})
	cloneProgress = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kubevirt_cdi_clone_progress_total",
		Help: "The clone progress in percentage",
	}, []string{"ownerUID"})
)

func init() {
	metrics.Registry.MustRegister(importProgress, cloneProgress)
}

// recordProgress publishes a DataVolume's progress while it has one.
func recordProgress(dv *cdiv1.DataVolume, p cdiv1.DataVolumeProgress) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(string(p), "%"), 64)
	if err != nil || isUpload(dv) {
		return
	}
	g := importProgress
	if isClone(dv) {
		g = cloneProgress
	}
	g.WithLabelValues(string(dv.UID)).Set(v)
}

// forgetProgress drops a deleted DataVolume's series.
func forgetProgress(dv *cdiv1.DataVolume) {
	importProgress.DeleteLabelValues(string(dv.UID))
	cloneProgress.DeleteLabelValues(string(dv.UID))
}
