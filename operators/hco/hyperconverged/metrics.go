package hyperconverged

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// outOfBandModifications counts component CR edits the operator reverted,
// under the metric name HCO exports.
var outOfBandModifications = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "kubevirt_hco_out_of_band_modifications_total",
	Help: "Count of out-of-band modifications overwritten by HCO",
}, []string{"component_name"})

// unsafeModifications counts each jsonpatch annotation's operations, as
// HCO's gauge of that name.
var unsafeModifications = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "kubevirt_hco_unsafe_modifications",
	Help: "Count of unsafe modifications in the HyperConverged annotations",
}, []string{"annotation_name"})

func init() {
	metrics.Registry.MustRegister(outOfBandModifications, unsafeModifications)
}
