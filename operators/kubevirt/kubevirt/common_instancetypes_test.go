package kubevirt

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation"
	kubevirtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
)

func TestCommonInstancetypeSeries(t *testing.T) {
	byName := map[string]*instancetypev1beta1.VirtualMachineClusterInstancetype{}
	for _, o := range CommonInstancetypes() {
		it := o.(*instancetypev1beta1.VirtualMachineClusterInstancetype)
		require.NotContains(t, byName, it.Name, "duplicate %s", it.Name)
		byName[it.Name] = it
	}
	require.Len(t, byName, 10+10+6+5)
	u1 := byName["u1.medium"].Spec
	require.Equal(t, uint32(1), u1.CPU.Guest)
	require.Equal(t, "4Gi", u1.Memory.Guest.String())
	require.Equal(t, 50, byName["o1.large"].Spec.Memory.OvercommitPercent)
	require.True(t, *byName["cx1.xlarge"].Spec.CPU.DedicatedCPUPlacement)
	require.Equal(t, "2Mi", byName["m1.large"].Spec.Memory.Hugepages.PageSize)
	require.Equal(t, "kubevirt.io", byName["u1.nano"].Labels[vendorLabel])
	for name, it := range byName {
		for k, v := range it.Labels {
			require.Empty(t, validation.IsValidLabelValue(v), "%s label %s=%q", name, k, v)
		}
	}
}

func TestCommonPreferences(t *testing.T) {
	got := map[string]*instancetypev1beta1.VirtualMachineClusterPreference{}
	for _, o := range CommonPreferences() {
		p := o.(*instancetypev1beta1.VirtualMachineClusterPreference)
		got[p.Name] = p
	}
	require.Equal(t, kubevirtv1.DiskBusVirtio, got["fedora"].Spec.Devices.PreferredDiskBus)
	require.Equal(t, kubevirtv1.DiskBusSATA, got["windows.11"].Spec.Devices.PreferredDiskBus)
	require.Equal(t, "e1000e", got["windows.11"].Spec.Devices.PreferredInterfaceModel)
}
