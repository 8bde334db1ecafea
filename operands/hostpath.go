package operands

import (
	corev1 "k8s.io/api/core/v1"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
)

// HostPathProvisionerName is the singleton HostPathProvisioner.
const HostPathProvisionerName = "hostpath-provisioner"

// HostPathPoolName is the storage pool's name; the StorageClass refers to it.
const HostPathPoolName = "local"

// desiredHostPathProvisioner returns nil unless the HyperConverged asks for
// one through HostPathAnnotation.
func desiredHostPathProvisioner(hc *hcov1beta1.HyperConverged) *hppv1beta1.HostPathProvisioner {
	path := hc.Annotations[HostPathAnnotation]
	if path == "" {
		return nil
	}
	hpp := &hppv1beta1.HostPathProvisioner{
		ObjectMeta: componentMeta(hc, HostPathProvisionerName, "", "storage"),
		Spec: hppv1beta1.HostPathProvisionerSpec{
			ImagePullPolicy: corev1.PullIfNotPresent,
			StoragePools:    []hppv1beta1.StoragePool{{Name: HostPathPoolName, Path: path}},
		},
	}
	hpp.SetGroupVersionKind(hppv1beta1.GroupVersion.WithKind(hco.KindHostPathProvisioner))
	return hpp
}
