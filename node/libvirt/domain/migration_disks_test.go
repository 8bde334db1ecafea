package domain

import (
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

func TestABlockMigrationCopiesTheDisksTheGuestWritesInThePod(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	vmi.Spec.Domain.Devices.Disks = []kubevirtv1.Disk{
		{Name: "root"}, {Name: "cloudinit"}, {Name: "data"},
		{Name: "iso", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{}}},
		{Name: "scratch", DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusSATA}}},
		{Name: "ro", DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{ReadOnly: true}}},
	}
	vmi.Spec.Volumes = []kubevirtv1.Volume{
		{Name: "root", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "x"}}},
		{Name: "cloudinit", VolumeSource: kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: "#cloud-config"}}},
		{Name: "data", VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{}}},
		{Name: "iso", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "iso"}}},
		{Name: "scratch", VolumeSource: kubevirtv1.VolumeSource{EmptyDisk: &kubevirtv1.EmptyDiskSource{}}},
		{Name: "ro", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "y"}}},
	}
	got, err := BlockMigrated(vmi)
	require.NoError(t, err)
	require.Equal(t, []string{"vda", "sdb"}, got, "the root overlay and the empty disk; not cloud-init, the claim, the cdrom or a read-only disk")

	// The names are the domain's own.
	dom := &libvirtxml.Domain{Devices: &libvirtxml.DomainDeviceList{}}
	sources := map[string]Source{}
	for _, v := range vmi.Spec.Volumes {
		sources[v.Name] = Source{Path: "/" + v.Name}
	}
	require.NoError(t, addDisks(dom, Input{VMI: vmi, Sources: sources}))
	require.Equal(t, "vda", dom.Devices.Disks[0].Target.Dev)
	require.Equal(t, "sdb", dom.Devices.Disks[4].Target.Dev)
}
