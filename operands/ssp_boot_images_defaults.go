package operands

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// DefaultBootImageNamespace is where the boot sources (DataImportCrons and
// their DataSources) live when the HyperConverged names no
// commonBootImageNamespace.
const DefaultBootImageNamespace = "virtflow-os-images"

// Annotations HCO reads on, or writes to, DataImportCron templates.
const (
	// DataImportCronEnabledAnnotation set to "false" on a template in the
	// HyperConverged drops it, or the built-in template of the same name.
	DataImportCronEnabledAnnotation = "dataimportcrontemplate.kubevirt.io/enable"
	// CDIImmediateBindAnnotation asks CDI to bind a golden image's claim
	// at once rather than waiting for a first consumer that never comes.
	CDIImmediateBindAnnotation = "cdi.kubevirt.io/storage.bind.immediate.requested"
	// MultiArchDICTAnnotation lists, comma separated, the architectures a
	// template's image exists for.
	MultiArchDICTAnnotation = "ssp.kubevirt.io/dict.architectures"
)

// DICTConditionDeployed is false on a template whose architectures no
// workload node has, when multi-architecture import is on.
const DICTConditionDeployed = "Deployed"

// The virtflow test guest's boot source: the node's own registry holds its
// container disk (the platform pushes it there), and the test guest's
// common templates clone the DataSource it keeps current.
const (
	TestGuestDICTName       = "virtflow-test-guest-image-cron"
	TestGuestDataSource     = "virtflow-test-guest"
	TestGuestRegistrySource = "docker://registry.virtflow.local:5000/virtflow/test-guest:latest"
)

// commonDICTSchedule is the schedule the built-in templates ship with,
// until status.dataImportSchedule replaces it.
const commonDICTSchedule = "0 */12 * * *"

// commonDICTs are the built-in boot sources: HCO release-1.19's list, in
// its order, and the test guest. Each call returns fresh copies, so callers
// may edit them.
func commonDICTs() []hcov1beta1.DataImportCronTemplate {
	return []hcov1beta1.DataImportCronTemplate{
		registryDICT("centos-stream9-image-cron", "centos-stream9", "docker://quay.io/containerdisks/centos-stream:9", "10Gi", "amd64,arm64,s390x"),
		registryDICT("centos-stream10-image-cron", "centos-stream10", "docker://quay.io/containerdisks/centos-stream:10", "10Gi", "amd64,arm64,s390x"),
		registryDICT("fedora-image-cron", "fedora", "docker://quay.io/containerdisks/fedora:latest", "5Gi", "arm64,s390x,amd64"),
		registryDICT(TestGuestDICTName, TestGuestDataSource, TestGuestRegistrySource, "64Mi", "amd64"),
	}
}

// registryDICT is a built-in template polling a container disk, with the
// fields HCO fills in on every built-in template: no retention, so the
// DataSource and its claim go with the cron, and a single kept import,
// since older ones serve nothing.
func registryDICT(name, dataSource, url, size, archs string) hcov1beta1.DataImportCronTemplate {
	gc := hcov1beta1.DataImportCronGarbageCollect("Outdated")
	retain := hcov1beta1.DataImportCronRetentionPolicy("None")
	keep := int32(1)
	return hcov1beta1.DataImportCronTemplate{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{CDIImmediateBindAnnotation: "true", MultiArchDICTAnnotation: archs},
		},
		Spec: &hcov1beta1.DataImportCronSpec{
			GarbageCollect:    &gc,
			ManagedDataSource: dataSource,
			Schedule:          commonDICTSchedule,
			RetentionPolicy:   &retain,
			ImportsToKeep:     &keep,
			Template: hcov1beta1.DataVolumeTemplate{Spec: hcov1beta1.DataVolumeSpec{
				Source: &hcov1beta1.DataVolumeSource{Registry: &hcov1beta1.DataVolumeSourceRegistry{URL: &url}},
				Storage: &hcov1beta1.StorageSpec{Resources: corev1.VolumeResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
				}},
			}},
		},
	}
}
