package vm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func TestInstancetypeAndPreferenceShapeTheVMI(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	cores := instancetypev1beta1.Cores
	it := &instancetypev1beta1.VirtualMachineClusterInstancetype{ObjectMeta: metav1.ObjectMeta{Name: "u1.medium"},
		Spec: instancetypev1beta1.VirtualMachineInstancetypeSpec{
			CPU:    instancetypev1beta1.CPUInstancetype{Guest: 2},
			Memory: instancetypev1beta1.MemoryInstancetype{Guest: resource.MustParse("4Gi")},
		}}
	pref := &instancetypev1beta1.VirtualMachineClusterPreference{ObjectMeta: metav1.ObjectMeta{Name: "windows.11"},
		Spec: instancetypev1beta1.VirtualMachinePreferenceSpec{
			CPU:     &instancetypev1beta1.CPUPreferences{PreferredCPUTopology: &cores},
			Devices: &instancetypev1beta1.DevicePreferences{PreferredDiskBus: kubevirtv1.DiskBusSATA, PreferredInterfaceModel: "e1000e"},
		}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(it, pref).Build()
	vm := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm"}, Spec: kubevirtv1.VirtualMachineSpec{
		Instancetype: &kubevirtv1.InstancetypeMatcher{Name: "u1.medium"},
		Preference:   &kubevirtv1.PreferenceMatcher{Name: "windows.11"},
		Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: kubevirtv1.VirtualMachineInstanceSpec{Domain: kubevirtv1.DomainSpec{
			Devices: kubevirtv1.Devices{
				Disks:      []kubevirtv1.Disk{{Name: "root"}, {Name: "fast", DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}}}},
				Interfaces: []kubevirtv1.Interface{{Name: "default"}},
			},
		}}},
	}}
	vmi := instanceFor(vm)
	require.NoError(t, expand(context.Background(), c, vm, vmi))
	d := vmi.Spec.Domain
	require.Equal(t, uint32(2), d.CPU.Cores, "the preference asks for cores")
	require.Equal(t, uint32(1), d.CPU.Sockets)
	require.Equal(t, "4Gi", d.Memory.Guest.String())
	require.Equal(t, kubevirtv1.DiskBusSATA, d.Devices.Disks[0].Disk.Bus, "unset bus takes the preference")
	require.Equal(t, kubevirtv1.DiskBusVirtio, d.Devices.Disks[1].Disk.Bus, "the VM's own choice wins")
	require.Equal(t, "e1000e", d.Devices.Interfaces[0].Model)

	vm.Spec.Template.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 4}
	err = expand(context.Background(), c, vm, instanceFor(vm))
	require.ErrorContains(t, err, "conflicts with selected instance type")

	vm.Spec.Template.Spec.Domain.CPU = nil
	vm.Spec.Instancetype.Name = "missing"
	require.ErrorContains(t, expand(context.Background(), c, vm, instanceFor(vm)), "failed to find VirtualMachineClusterInstancetype missing")
}

func TestMatcherKindsResolveAsUpstream(t *testing.T) {
	cases := map[string]string{
		"":                                   clusterInstancetypeKind,
		"VirtualMachineClusterInstancetype":  clusterInstancetypeKind,
		"virtualmachineclusterinstancetype":  clusterInstancetypeKind,
		"virtualmachineclusterinstancetypes": clusterInstancetypeKind,
		"virtualmachineinstancetype":         instancetypeKind,
		"VirtualMachineInstancetypes":        instancetypeKind,
		"Pod":                                "Pod",
	}
	for kind, want := range cases {
		require.Equal(t, want, kindOf(kind, clusterInstancetypeKind, instancetypeKind), "kind %q", kind)
	}
	require.Equal(t, preferenceKind, kindOf("virtualmachinepreference", clusterPreferenceKind, preferenceKind))
}
