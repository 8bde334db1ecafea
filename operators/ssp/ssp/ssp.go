// Package ssp is ssp-operator: an SSP CR gets the template validator (a
// validating webhook for VMs, as pods), the common templates in its
// commonTemplates.namespace, the boot sources (DataSources and the
// DataImportCrons that fill them) in the boot-image namespace, the VM
// delete protection policy, and, where Tekton Pipelines is installed, the
// Tekton tasks and example pipelines. The VM console proxy is not built
// yet: an SSP that asks for it (tokenGenerationService) says so and is not
// Available.
package ssp

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/kube/workloads"
)

// NotBuilt are upstream's SSP operands virtflow lacks.
var NotBuilt = []string{"vm-console-proxy"}

// Kind describes the SSP operator for the component reconciler.
func Kind(version string) workloads.Kind {
	return workloads.Kind{
		GVK:        schema.GroupVersionKind{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"},
		Components: components,
		NotBuilt:   NotBuilt,
		Wanted:     wanted,
		Finalizer:  "finalize.ssp.kubevirt.io",
		Style:      workloads.ConditionsV1,
		Version:    version,
		Manifests:  DeleteProtection,
	}
}

// components are always deployed; upstream has no switch for them.
var components = []string{Validator, CommonTemplates, DataSources, TektonTasks}

// wanted adds the VM console proxy when the SSP's token generation
// service asks for it, as upstream's operator deploys it.
func wanted(owner *unstructured.Unstructured) []string {
	out := append([]string{}, components...)
	if on, _, _ := unstructured.NestedBool(owner.Object, "spec", "tokenGenerationService", "enabled"); on {
		out = append(out, NotBuilt...)
	}
	return out
}
