// Package kubevirt is virt-operator: a KubeVirt CR gets virt-api, virt-controller and virt-handler (as pods where an Install says how), the common instancetypes and preferences, and a status that says whether its components are ready.
package kubevirt

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
)

// Components are the workloads every KubeVirt CR gets.
var Components = []string{"virt-api", "virt-controller", "virt-handler"}

// Kind describes the KubeVirt operator for the component reconciler.
func Kind(version string) workloads.Kind {
	return workloads.Kind{
		GVK:        schema.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "KubeVirt"},
		Components: Components,
		Finalizer:  "foregroundDeleteKubeVirt",
		Style:      workloads.KubeVirtStyle,
		Version:    version,
		Manifests: func() []client.Object {
			return append(CommonInstancetypes(), CommonPreferences()...)
		},
	}
}
