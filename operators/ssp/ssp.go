// Package ssp is ssp-operator: an SSP CR gets the template validator.
package ssp

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/operators/component"
)

// Components are the workloads every SSP CR gets.
var Components = []string{"virt-template-validator"}

// Kind describes the SSP operator for the component reconciler.
func Kind(version string) component.Kind {
	return component.Kind{
		GVK:        schema.GroupVersionKind{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"},
		Components: Components,
		Finalizer:  "finalize.ssp.kubevirt.io",
		Style:      component.ConditionsV1,
		Version:    version,
	}
}
