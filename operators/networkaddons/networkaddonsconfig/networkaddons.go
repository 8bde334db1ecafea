// Package networkaddonsconfig is cluster-network-addons-operator. Upstream, a
// NetworkAddonsConfig gets kubemacpool, bridge-marker and the linux-bridge
// plugin; virtflow has none of them yet, so it deploys nothing and says so
// in the CR's conditions.
package networkaddonsconfig

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/kube/workloads"
)

// NotBuilt are upstream's NetworkAddonsConfig components virtflow lacks.
var NotBuilt = []string{"kubemacpool", "bridge-marker", "linux-bridge"}

// Kind describes the NetworkAddonsConfig operator for the component reconciler.
func Kind(version string) workloads.Kind {
	return workloads.Kind{
		GVK:       schema.GroupVersionKind{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"},
		NotBuilt:  NotBuilt,
		Finalizer: "networkaddonsoperator.network.kubevirt.io/finalizer",
		Style:     workloads.ConditionsV1,
		Version:   version,
	}
}
