// Package networkaddons is cluster-network-addons-operator: the NetworkAddonsConfig CR gets kubemacpool and bridge-marker.
package networkaddons

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/operators/component"
)

// Components are the workloads every NetworkAddonsConfig CR gets.
var Components = []string{"kubemacpool", "bridge-marker"}

// Kind describes the NetworkAddonsConfig operator for the component reconciler.
func Kind(version string) component.Kind {
	return component.Kind{
		GVK:        schema.GroupVersionKind{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"},
		Components: Components,
		Finalizer:  "networkaddonsoperator.network.kubevirt.io/finalizer",
		Style:      component.ConditionsV1,
		Version:    version,
	}
}
