// Package ssp is ssp-operator. Upstream, an SSP CR gets the template
// validator and the common templates; virtflow has neither yet, so it
// deploys nothing and says so in the CR's conditions.
package ssp

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/operators/component"
)

// NotBuilt are upstream's SSP components virtflow lacks.
var NotBuilt = []string{"virt-template-validator", "common-templates"}

// Kind describes the SSP operator for the component reconciler.
func Kind(version string) component.Kind {
	return component.Kind{
		GVK:       schema.GroupVersionKind{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"},
		NotBuilt:  NotBuilt,
		Finalizer: "finalize.ssp.kubevirt.io",
		Style:     component.ConditionsV1,
		Version:   version,
	}
}
