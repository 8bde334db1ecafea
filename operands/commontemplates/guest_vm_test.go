package commontemplates

import (
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func vmOf(t *testing.T, name string) *kubevirtv1.VirtualMachine {
	t.Helper()
	tp, ok := byName(Templates(Options{}))[name]
	require.True(t, ok, name)
	return decodeVM(t, tp)
}

// TestLinuxVMsBootWithCloudInit checks the cloud-init seed and virtio
// devices every Linux template shares.
func TestLinuxVMsBootWithCloudInit(t *testing.T) {
	for _, c := range upstreamCases {
		if c.windows {
			continue
		}
		name := c.os + "-" + c.workloads[0] + "-" + c.flavors[0]
		spec := vmOf(t, name).Spec.Template.Spec
		require.Len(t, spec.Volumes, 2, name)
		require.Equal(t, "cloudinitdisk", spec.Volumes[1].Name, name)
		require.Equal(t, "#cloud-config\nuser: "+c.cloudUser+"\npassword: ${CLOUD_USER_PASSWORD}\nchpasswd: { expire: False }",
			spec.Volumes[1].CloudInitNoCloud.UserData, name)
		d := spec.Domain.Devices
		require.Equal(t, []string{"rootdisk", "cloudinitdisk"}, []string{d.Disks[0].Name, d.Disks[1].Name}, name)
		require.Equal(t, kubevirtv1.DiskBusVirtio, d.Disks[0].Disk.Bus, name)
		require.Equal(t, "virtio", d.Interfaces[0].Model, name)
		require.NotNil(t, d.Interfaces[0].Masquerade, name)
		require.NotNil(t, d.Rng, name)
		require.Equal(t, int64(180), *spec.TerminationGracePeriodSeconds, name)
		require.NotNil(t, spec.Networks[0].Pod, name)
	}
}

// TestLinuxFirmwareAndDevicesFollowTheMetaTemplates checks where upstream's
// Linux meta-templates differ: UEFI, legacy virtio, I/O threads,
// multiqueue, tablets.
func TestLinuxFirmwareAndDevicesFollowTheMetaTemplates(t *testing.T) {
	for _, name := range []string{"rhel9-server-small", "fedora-server-small"} {
		d := vmOf(t, name).Spec.Template.Spec.Domain
		require.True(t, *d.Features.SMM.Enabled, name)
		require.NotNil(t, d.Firmware.Bootloader.EFI, name)
		require.Nil(t, d.Firmware.Bootloader.EFI.SecureBoot, name)
	}
	for _, name := range []string{"rhel8-server-small", "rhel7-server-small", "centos-stream9-server-small", "ubuntu-server-small", "opensuse-server-small"} {
		d := vmOf(t, name).Spec.Template.Spec.Domain
		require.Nil(t, d.Features, name)
		require.Nil(t, d.Firmware, name)
	}
	c6 := vmOf(t, "centos6-server-small").Spec.Template.Spec.Domain
	require.True(t, *c6.Devices.UseVirtioTransitional)
	require.Equal(t, uint(1), *c6.Devices.Disks[0].BootOrder)

	hp := vmOf(t, "rhel9-highperformance-large").Spec.Template.Spec.Domain
	require.Equal(t, kubevirtv1.IOThreadsPolicyShared, *hp.IOThreadsPolicy)
	require.True(t, *hp.Devices.Disks[0].DedicatedIOThread)
	require.True(t, *hp.Devices.NetworkInterfaceMultiQueue)
	require.Nil(t, vmOf(t, "rhel9-server-medium").Spec.Template.Spec.Domain.Devices.NetworkInterfaceMultiQueue)
	require.True(t, *vmOf(t, "rhel9-server-large").Spec.Template.Spec.Domain.Devices.NetworkInterfaceMultiQueue)

	require.Empty(t, vmOf(t, "rhel9-server-small").Spec.Template.Spec.Domain.Devices.Inputs)
	tablet := vmOf(t, "rhel9-desktop-small").Spec.Template.Spec.Domain.Devices.Inputs
	require.Equal(t, []kubevirtv1.Input{{Type: "tablet", Bus: "virtio", Name: "tablet"}}, tablet)
	require.Len(t, vmOf(t, "ubuntu-server-small").Spec.Template.Spec.Domain.Devices.Inputs, 1, "Ubuntu servers get a tablet too")
}

// TestWindowsVMsHaveHyperVClockAndSecureBoot checks the enlightenments,
// timers, TPM and firmware of every Windows template.
func TestWindowsVMsHaveHyperVClockAndSecureBoot(t *testing.T) {
	for _, c := range upstreamCases {
		if !c.windows {
			continue
		}
		for _, w := range c.workloads {
			name := c.os + "-" + w + "-large"
			spec := vmOf(t, name).Spec.Template.Spec
			d := spec.Domain
			require.NotNil(t, d.Clock.UTC, name)
			require.False(t, *d.Clock.Timer.HPET.Enabled, name)
			require.Equal(t, kubevirtv1.PITTickPolicyDelay, d.Clock.Timer.PIT.TickPolicy, name)
			require.Equal(t, kubevirtv1.RTCTickPolicyCatchup, d.Clock.Timer.RTC.TickPolicy, name)
			require.NotNil(t, d.Clock.Timer.Hyperv, name)
			h := d.Features.Hyperv
			for _, f := range []*kubevirtv1.FeatureState{h.Relaxed, h.VAPIC, h.VPIndex, h.SyNIC, h.Frequencies, h.Reenlightenment, h.IPI, h.Runtime, h.Reset, h.SyNICTimer.Direct} {
				require.NotNil(t, f, name)
			}
			require.Equal(t, uint32(8191), *h.Spinlocks.Retries, name)
			require.NotNil(t, h.TLBFlush, name)
			require.NotNil(t, d.Features.APIC, name)
			require.NotNil(t, d.Features.SMM, name)
			require.True(t, *d.Firmware.Bootloader.EFI.SecureBoot, name)
			tpm := c.os == "windows11" || c.os == "windows2k22" || c.os == "windows2k25"
			require.Equal(t, tpm, d.Devices.TPM != nil && *d.Devices.TPM.Persistent, name)
			require.Equal(t, tpm, d.Firmware.Bootloader.EFI.Persistent != nil && *d.Firmware.Bootloader.EFI.Persistent, name)
			require.Equal(t, []kubevirtv1.Input{{Type: "tablet", Bus: "usb", Name: "tablet"}}, d.Devices.Inputs, name)
			require.Len(t, spec.Volumes, 1, "no cloud-init on Windows: %s", name)
			require.Equal(t, int64(3600), *spec.TerminationGracePeriodSeconds, name)
			require.Nil(t, d.Devices.Rng, name)
		}
	}
}

// TestWindowsBusesFollowTheWorkload checks that only high-performance
// Windows VMs assume virtio drivers.
func TestWindowsBusesFollowTheWorkload(t *testing.T) {
	plain := vmOf(t, "windows2k19-server-large").Spec.Template.Spec.Domain
	require.Equal(t, kubevirtv1.DiskBusSATA, plain.Devices.Disks[0].Disk.Bus)
	require.Equal(t, "e1000e", plain.Devices.Interfaces[0].Model)
	require.Nil(t, plain.Devices.NetworkInterfaceMultiQueue)

	fast := vmOf(t, "windows2k19-highperformance-large").Spec.Template.Spec.Domain
	require.Equal(t, kubevirtv1.DiskBusVirtio, fast.Devices.Disks[0].Disk.Bus)
	require.Equal(t, "virtio", fast.Devices.Interfaces[0].Model)
	require.True(t, *fast.Devices.NetworkInterfaceMultiQueue)
	require.Nil(t, fast.IOThreadsPolicy, "upstream's Windows templates set no I/O threads")

	require.Nil(t, vmOf(t, "windows10-highperformance-medium").Spec.Template.Spec.Domain.Devices.NetworkInterfaceMultiQueue)
}

// TestTheTestGuestBootsAsTheIntegrationTestsBootIt checks the test guest's
// VM against the domain the integration tests boot.
func TestTheTestGuestBootsAsTheIntegrationTestsBootIt(t *testing.T) {
	for _, name := range []string{"virtflow-test-guest-server-tiny", "virtflow-test-guest-server-small"} {
		spec := vmOf(t, name).Spec.Template.Spec
		kb := spec.Domain.Firmware.KernelBoot
		require.Equal(t, "console=ttyS0", kb.KernelArgs, name)
		require.Equal(t, &kubevirtv1.KernelBootContainer{
			Image: DefaultTestGuestImage, KernelPath: "/boot/vmlinuz", InitrdPath: "/boot/initramfs.img",
		}, kb.Container, name)
		require.Nil(t, spec.Domain.Firmware.Bootloader, name)
		require.Equal(t, []kubevirtv1.Disk{{Name: "rootdisk", DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: "virtio"}}}},
			spec.Domain.Devices.Disks, name)
		require.Equal(t, []kubevirtv1.Volume{{Name: "rootdisk", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "${NAME}"}}}},
			spec.Volumes, name)
		require.Empty(t, spec.Networks, name)
		require.Empty(t, spec.Domain.Devices.Interfaces, name)
	}
}
