package vmistatus

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestLiveMigratable(t *testing.T) {
	claims := map[string][]corev1.PersistentVolumeAccessMode{
		"shared": {corev1.ReadWriteMany}, "local": {corev1.ReadWriteOnce},
	}
	modes := func(c string) ([]corev1.PersistentVolumeAccessMode, error) {
		if m, ok := claims[c]; ok {
			return m, nil
		}
		return nil, errors.New("not found")
	}
	pvc := func(name string) kubevirtv1.Volume {
		v := kubevirtv1.Volume{Name: name, VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{}}}
		v.PersistentVolumeClaim.ClaimName = name
		return v
	}
	podNet := []kubevirtv1.Network{{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}
	masq := kubevirtv1.Interface{Name: "default", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}}
	bridge := kubevirtv1.Interface{Name: "default", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}}
	cases := []struct {
		name        string
		volumes     []kubevirtv1.Volume
		ifaces      []kubevirtv1.Interface
		annotations map[string]string
		reason      string
		message     string
	}{
		{name: "container disk and masquerade", volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{}}}}, ifaces: []kubevirtv1.Interface{masq}},
		{name: "shared claim", volumes: []kubevirtv1.Volume{pvc("shared")}},
		{name: "local claim", volumes: []kubevirtv1.Volume{pvc("local")}, reason: "DisksNotLiveMigratable",
			message: "cannot migrate VMI: PVC local is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)"},
		{name: "missing claim", volumes: []kubevirtv1.Volume{pvc("gone")}, reason: "DisksNotLiveMigratable",
			message: "cannot migrate VMI: Unable to determine if PVC gone is shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)"},
		{name: "interfaces are checked before disks, as upstream", volumes: []kubevirtv1.Volume{pvc("local")}, ifaces: []kubevirtv1.Interface{bridge},
			reason: "InterfaceNotLiveMigratable", message: "cannot migrate VMI which does not use masquerade or a migratable plugin to connect to the pod network"},
		{name: "non-shared host disk", volumes: []kubevirtv1.Volume{{Name: "h", VolumeSource: kubevirtv1.VolumeSource{HostDisk: &kubevirtv1.HostDisk{Path: "/d"}}}},
			reason: "DisksNotLiveMigratable", message: "cannot migrate VMI with non-shared HostDisk"},
		{name: "bridge on pod network", ifaces: []kubevirtv1.Interface{bridge}, reason: "InterfaceNotLiveMigratable",
			message: "cannot migrate VMI which does not use masquerade or a migratable plugin to connect to the pod network"},
		{name: "bridge allowed by annotation", ifaces: []kubevirtv1.Interface{bridge},
			annotations: map[string]string{kubevirtv1.AllowPodBridgeNetworkLiveMigrationAnnotation: ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Annotations: c.annotations},
				Spec: kubevirtv1.VirtualMachineInstanceSpec{Volumes: c.volumes, Networks: podNet}}
			v.Spec.Domain.Devices.Interfaces = c.ifaces
			cond := LiveMigratable(v, modes)
			require.Equal(t, kubevirtv1.VirtualMachineInstanceIsMigratable, cond.Type)
			if c.reason == "" {
				require.Equal(t, corev1.ConditionTrue, cond.Status)
				return
			}
			require.Equal(t, corev1.ConditionFalse, cond.Status)
			require.Equal(t, c.reason, string(cond.Reason))
			require.Equal(t, c.message, cond.Message)
		})
	}
}

func TestDevicesAreCheckedBeforeVolumes(t *testing.T) {
	on := true
	v := &kubevirtv1.VirtualMachineInstance{}
	v.Spec.Volumes = []kubevirtv1.Volume{{Name: "h", VolumeSource: kubevirtv1.VolumeSource{HostDisk: &kubevirtv1.HostDisk{Path: "/d"}}}}
	v.Spec.Domain.Features = &kubevirtv1.Features{HypervPassthrough: &kubevirtv1.HyperVPassthrough{Enabled: &on}}
	cond := LiveMigratable(v, nil)
	require.Equal(t, "HypervPassthroughNotLiveMigratable", cond.Reason)
	require.Equal(t, "VMI uses hyperv passthrough", cond.Message)
	v.Spec.Domain.Devices.HostDevices = []kubevirtv1.HostDevice{{Name: "gpu", DeviceName: "x/y"}}
	cond = LiveMigratable(v, nil)
	require.Equal(t, "HostDeviceNotLiveMigratable", cond.Reason)
	require.Equal(t, "VMI uses a PCI host devices", cond.Message)
}

func TestNodeLocalDisksMoveByBlockMigration(t *testing.T) {
	yes := true
	v := &kubevirtv1.VirtualMachineInstance{}
	v.Spec.Volumes = []kubevirtv1.Volume{{Name: "data", VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{
		PersistentVolumeClaimVolumeSource: corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}
	require.Equal(t, kubevirtv1.LiveMigration, MigrationMethod(v), "shared claims only")
	v.Spec.Volumes = append(v.Spec.Volumes, kubevirtv1.Volume{Name: "iso", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{}}})
	v.Spec.Domain.Devices.Disks = []kubevirtv1.Disk{{Name: "iso", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{ReadOnly: &yes}}}}
	require.Equal(t, kubevirtv1.LiveMigration, MigrationMethod(v), "a read-only cdrom is not copied")
	v.Spec.Volumes = append(v.Spec.Volumes, kubevirtv1.Volume{Name: "root", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{}}})
	require.Equal(t, kubevirtv1.BlockMigration, MigrationMethod(v), "a container disk's overlay is")
}
