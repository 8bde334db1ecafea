package kubemacpool

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// kubemacpool's metrics under its names: duplicates found while rebuilding
// the map, and per MAC how many objects share it.
var (
	duplicateMACs = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kubevirt_kmp_duplicate_macs",
		Help: "Kubemacpool duplicate macs counter",
	})
	macCollisions = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kmp_mac_collisions",
		Help: "Count of running objects sharing the same MAC address (collision when > 1)",
	}, []string{"mac"})
)

func init() {
	metrics.Registry.MustRegister(duplicateMACs, macCollisions)
}

// publishCollisions replaces the collision series with the ones just found,
// so a collision that was resolved stops being reported.
func publishCollisions(sharing map[string]int) {
	macCollisions.Reset()
	for mac, n := range sharing {
		macCollisions.WithLabelValues(mac).Set(float64(n))
	}
}
