package commontemplates

import (
	"encoding/json"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// Placeholders the template's parameters fill in.
const (
	nameRef                = "${" + ParamName + "}"
	dataSourceNameRef      = "${" + ParamDataSourceName + "}"
	dataSourceNamespaceRef = "${" + ParamDataSourceNamespace + "}"
	cloudUserPasswordRef   = "${" + ParamCloudUserPassword + "}"
)

// rootDisk is the disk and volume name upstream gives the cloned disk; the
// defaults.template.kubevirt.io/disk annotation points at it.
const rootDisk = "rootdisk"

// revision is the template revision upstream's release tooling stamps.
const revision = 1

// virtualMachine is the VM a template creates: halted, its root disk a
// DataVolume cloned from the DataSource the parameters name.
func virtualMachine(f *family, v variant, o Options) *kubevirtv1.VirtualMachine {
	halted := kubevirtv1.RunStrategyHalted
	vm := &kubevirtv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{
			Name: nameRef,
			Labels: map[string]string{
				LabelVMTemplate:         f.name(v),
				LabelVMTemplateVersion:  o.Version,
				LabelVMTemplateRevision: strconv.Itoa(revision),
				"app":                   nameRef,
			},
			Annotations: map[string]string{AnnotationValidations: validationsJSON(f.rules)},
		},
		Spec: kubevirtv1.VirtualMachineSpec{
			DataVolumeTemplates: []kubevirtv1.DataVolumeTemplateSpec{rootDataVolume(f.storage)},
			RunStrategy:         &halted,
			Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Annotations: map[string]string{
						AnnotationVMOS: f.os, AnnotationVMWorkload: v.workload, AnnotationVMFlavor: v.flavor,
					},
					Labels: map[string]string{"kubevirt.io/domain": nameRef, "kubevirt.io/size": v.flavor},
				},
				Spec: f.spec(f, v, o),
			},
		},
	}
	vm.SetGroupVersionKind(kubevirtv1.VirtualMachineGroupVersionKind)
	return vm
}

// rootDataVolume clones the DataSource the parameters name, at the size
// upstream gives the OS.
func rootDataVolume(size string) kubevirtv1.DataVolumeTemplateSpec {
	ns := dataSourceNamespaceRef
	return kubevirtv1.DataVolumeTemplateSpec{
		TypeMeta:   metav1.TypeMeta{APIVersion: cdiv1.SchemeGroupVersion.String(), Kind: "DataVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: nameRef},
		Spec: cdiv1.DataVolumeSpec{
			SourceRef: &cdiv1.DataVolumeSourceRef{Kind: cdiv1.DataVolumeDataSource, Name: dataSourceNameRef, Namespace: &ns},
			Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			}},
		},
	}
}

// rootVolume is the VM's volume of the cloned disk.
func rootVolume() kubevirtv1.Volume {
	return kubevirtv1.Volume{Name: rootDisk, VolumeSource: kubevirtv1.VolumeSource{
		DataVolume: &kubevirtv1.DataVolumeSource{Name: nameRef},
	}}
}

// podNetwork is the single pod network upstream's VMs attach to.
func podNetwork() []kubevirtv1.Network {
	return []kubevirtv1.Network{{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}
}

// masquerade is the pod network's interface with the given NIC model.
func masquerade(model string) kubevirtv1.Interface {
	return kubevirtv1.Interface{
		Name: "default", Model: model,
		InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}},
	}
}

// cpu is the flavor's topology: sockets scale, cores and threads stay.
func cpu(flavor string, cores uint32) *kubevirtv1.CPU {
	return &kubevirtv1.CPU{Sockets: sockets(flavor), Cores: cores, Threads: 1}
}

// memory is the flavor's guest memory.
func memory(f *family, flavor string) *kubevirtv1.Memory {
	q := resource.MustParse(f.memory[flavor])
	return &kubevirtv1.Memory{Guest: &q}
}

// encode turns the VM into the raw object of a template. Go's encoding of
// the typed VM writes null timestamps and empty status and resources
// objects that upstream's templates do not have; they mean nothing and are
// dropped so the object reads as upstream writes it.
func encode(vm *kubevirtv1.VirtualMachine) runtime.RawExtension {
	raw, err := json.Marshal(vm)
	if err != nil {
		panic(err) // the typed VM always marshals
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err)
	}
	prune(doc)
	raw, err = json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return runtime.RawExtension{Raw: raw}
}

// emptyDropped are the keys whose empty objects prune drops: structs the
// typed API embeds by value, where empty means unset.
var emptyDropped = map[string]bool{"status": true, "resources": true}

// prune removes null values and the empty objects of emptyDropped,
// recursively.
func prune(doc map[string]any) {
	for k, v := range doc {
		switch val := v.(type) {
		case nil:
			delete(doc, k)
		case map[string]any:
			prune(val)
			if emptyDropped[k] && len(val) == 0 {
				delete(doc, k)
			}
		case []any:
			for _, item := range val {
				if m, ok := item.(map[string]any); ok {
					prune(m)
				}
			}
		}
	}
}
