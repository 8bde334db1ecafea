// Package hostpathprovisioner is hostpath-provisioner-operator: a HostPathProvisioner CR gets the hostpath CSI driver.
package hostpathprovisioner

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/virtflow/virtflow/kube/workloads"
)

// Components are the workloads every HostPathProvisioner CR gets.
var Components = []string{"hostpath-provisioner-csi"}

// Kind describes the HostPathProvisioner operator for the component reconciler.
func Kind(version string) workloads.Kind {
	return workloads.Kind{
		GVK:        schema.GroupVersionKind{Group: "hostpathprovisioner.kubevirt.io", Version: "v1beta1", Kind: "HostPathProvisioner"},
		Components: Components,
		Finalizer:  "finalizer.delete.hostpath-provisioner",
		Style:      workloads.ConditionsV1,
		Version:    version,
	}
}
