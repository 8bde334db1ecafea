// Package cdi is cdi-operator: a CDI CR gets cdi-apiserver, cdi-deployment (the controller) and cdi-uploadproxy.
package cdi

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/kube/workloads"
)

// Components are the workloads every CDI CR gets.
var Components = []string{"cdi-apiserver", "cdi-deployment", "cdi-uploadproxy"}

// Kind describes the CDI operator for the component reconciler.
func Kind(version string) workloads.Kind {
	return workloads.Kind{
		GVK:        schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDI"},
		Components: Components,
		Finalizer:  "operator.cdi.kubevirt.io",
		Style:      workloads.ConditionsV1,
		Version:    version,
		// Upstream's CDI CRD has no status subresource.
		NoStatusSubresource: true,
	}
}
