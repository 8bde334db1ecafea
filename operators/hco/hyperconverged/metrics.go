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

func init() {
	metrics.Registry.MustRegister(outOfBandModifications)
}
