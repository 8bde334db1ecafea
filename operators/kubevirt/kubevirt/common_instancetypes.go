package kubevirt

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// size is one member of an instancetype series.
type size struct {
	name   string
	cpus   uint32
	memory string
}

// The common-instancetypes series virt-operator deploys: universal (u1),
// overcommitted (o1), compute exclusive (cx1) and memory intensive (m1).
var (
	universal = []size{{"nano", 1, "512Mi"}, {"micro", 1, "1Gi"}, {"small", 1, "2Gi"}, {"medium", 1, "4Gi"},
		{"2xmedium", 2, "4Gi"}, {"large", 2, "8Gi"}, {"xlarge", 4, "16Gi"}, {"2xlarge", 8, "32Gi"},
		{"4xlarge", 16, "64Gi"}, {"8xlarge", 32, "128Gi"}}
	compute = []size{{"medium", 1, "2Gi"}, {"large", 2, "4Gi"}, {"xlarge", 4, "8Gi"}, {"2xlarge", 8, "16Gi"},
		{"4xlarge", 16, "32Gi"}, {"8xlarge", 32, "64Gi"}}
	memoryHeavy = []size{{"large", 2, "16Gi"}, {"xlarge", 4, "32Gi"}, {"2xlarge", 8, "64Gi"},
		{"4xlarge", 16, "128Gi"}, {"8xlarge", 32, "256Gi"}}
)

const vendorLabel = "instancetype.kubevirt.io/vendor"

func clusterInstancetype(series, class, display string, s size, mutate func(*instancetypev1beta1.VirtualMachineInstancetypeSpec)) client.Object {
	it := &instancetypev1beta1.VirtualMachineClusterInstancetype{
		ObjectMeta: metav1.ObjectMeta{
			Name: series + "." + s.name,
			Labels: map[string]string{
				vendorLabel: "kubevirt.io", "instancetype.kubevirt.io/common-instancetypes-version": "virtflow",
				"instancetype.kubevirt.io/class": class, "instancetype.kubevirt.io/cpu": fmt.Sprint(s.cpus),
				"instancetype.kubevirt.io/memory": s.memory,
			},
			Annotations: map[string]string{"instancetype.kubevirt.io/displayName": display},
		},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{
			CPU:    instancetypev1beta1.CPUInstancetype{Guest: s.cpus},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse(s.memory)},
		},
	}
	if mutate != nil {
		mutate(&it.Spec)
	}
	it.SetGroupVersionKind(instancetypev1beta1.SchemeGroupVersion.WithKind("VirtualMachineClusterInstancetype"))
	return it
}

// CommonInstancetypes returns the u1, o1, cx1 and m1 series.
func CommonInstancetypes() []client.Object {
	var out []client.Object
	yes := true
	hugepages := &kubevirtv1.Hugepages{PageSize: "2Mi"}
	for _, s := range universal {
		out = append(out, clusterInstancetype("u1", "general.purpose", "General Purpose", s, nil))
		out = append(out, clusterInstancetype("o1", "overcommitted", "Overcommitted", s, func(spec *instancetypev1beta1.VirtualMachineInstancetypeSpec) {
			spec.Memory.OvercommitPercent = 50
		}))
	}
	for _, s := range compute {
		out = append(out, clusterInstancetype("cx1", "compute.exclusive", "Compute Exclusive", s, func(spec *instancetypev1beta1.VirtualMachineInstancetypeSpec) {
			spec.CPU.DedicatedCPUPlacement, spec.CPU.IsolateEmulatorThread = &yes, &yes
			spec.Memory.Hugepages = hugepages
		}))
	}
	for _, s := range memoryHeavy {
		out = append(out, clusterInstancetype("m1", "memory.intensive", "Memory Intensive", s, func(spec *instancetypev1beta1.VirtualMachineInstancetypeSpec) {
			spec.Memory.Hugepages = hugepages
		}))
	}
	return out
}

// CommonPreferences returns cluster preferences for common guest operating
// systems: virtio devices for Linux guests, SATA and e1000e for Windows.
func CommonPreferences() []client.Object {
	linux := func(name, display string) client.Object {
		return preference(name, display, kubevirtv1.DiskBusVirtio, "virtio")
	}
	return []client.Object{
		linux("fedora", "Fedora (amd64)"), linux("centos.stream9", "CentOS Stream 9"), linux("centos.stream10", "CentOS Stream 10"),
		linux("rhel.9", "Red Hat Enterprise Linux 9"), linux("rhel.10", "Red Hat Enterprise Linux 10"), linux("ubuntu", "Ubuntu"),
		linux("debian", "Debian"), linux("opensuse.leap", "OpenSUSE Leap"), linux("alpine", "Alpine"), linux("cirros", "Cirros"),
		preference("windows.11", "Microsoft Windows 11", kubevirtv1.DiskBusSATA, "e1000e"),
		preference("windows.2k22", "Microsoft Windows Server 2022", kubevirtv1.DiskBusSATA, "e1000e"),
	}
}

func preference(name, display string, bus kubevirtv1.DiskBus, nic string) client.Object {
	p := &instancetypev1beta1.VirtualMachineClusterPreference{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{vendorLabel: "kubevirt.io"},
			Annotations: map[string]string{"openshift.io/display-name": display},
		},
		Spec: instancetypev1beta1.VirtualMachinePreferenceSpec{
			Devices: &instancetypev1beta1.DevicePreferences{
				PreferredDiskBus: bus, PreferredInterfaceModel: nic, PreferredCdromBus: kubevirtv1.DiskBusSATA,
			},
		},
	}
	p.SetGroupVersionKind(instancetypev1beta1.SchemeGroupVersion.WithKind("VirtualMachineClusterPreference"))
	return p
}
