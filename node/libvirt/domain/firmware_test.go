package domain

import (
	"testing"

	"github.com/stretchr/testify/require"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func efiInput(secure bool) Input {
	vmi := baseVMI()
	vmi.Spec.Domain.Firmware = &kubevirtv1.Firmware{Bootloader: &kubevirtv1.Bootloader{EFI: &kubevirtv1.EFI{SecureBoot: &secure}}}
	if secure {
		vmi.Spec.Domain.Features = &kubevirtv1.Features{SMM: &kubevirtv1.FeatureState{}}
	}
	in := baseInput(vmi)
	in.Firmware, in.NVRAMDir, in.VNCSocket = DebianOVMF, "/run/vmi", "/run/vmi/vnc.sock"
	return in
}

func TestEFIBootsOVMFWithTheVMIsOwnVariableStore(t *testing.T) {
	d, err := Build(efiInput(false))
	require.NoError(t, err)
	require.Equal(t, "/usr/share/OVMF/OVMF_CODE_4M.fd", d.OS.Loader.Path)
	require.Equal(t, "pflash", d.OS.Loader.Type)
	require.Equal(t, "no", d.OS.Loader.Secure)
	require.Equal(t, "/usr/share/OVMF/OVMF_VARS_4M.fd", d.OS.NVRam.Template)
	require.Equal(t, "/run/vmi/vm1_VARS.fd", d.OS.NVRam.NVRam, "upstream's name for the store")
	require.Equal(t, "bochs", d.Devices.Videos[0].Model.Type, "OVMF has no VGA BIOS; upstream gives EFI guests Bochs")
	require.Nil(t, d.Features.SMM)
}

func TestSecureBootUsesTheEnrolledVariablesAndSMM(t *testing.T) {
	d, err := Build(efiInput(true))
	require.NoError(t, err)
	require.Equal(t, "/usr/share/OVMF/OVMF_CODE_4M.secboot.fd", d.OS.Loader.Path)
	require.Equal(t, "yes", d.OS.Loader.Secure)
	require.Equal(t, "/usr/share/OVMF/OVMF_VARS_4M.ms.fd", d.OS.NVRam.Template, "Microsoft's keys, so a distribution's shim boots")
	require.Equal(t, "on", d.Features.SMM.State)
}

func TestEFIOnANodeWithoutFirmwareFailsSayingSo(t *testing.T) {
	in := efiInput(false)
	in.Firmware = Firmware{}
	_, err := Build(in)
	require.ErrorContains(t, err, "this node has no EFI firmware")
}

func TestDedicatedCPUsArePinnedToThePodsCPUs(t *testing.T) {
	in := baseInput(baseVMI())
	in.VMI.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 2, DedicatedCPUPlacement: true, IsolateEmulatorThread: true}
	in.CPUSet = []int{3, 5, 7}
	d, err := Build(in)
	require.NoError(t, err)
	require.Len(t, d.CPUTune.VCPUPin, 2)
	require.Equal(t, "3", d.CPUTune.VCPUPin[0].CPUSet)
	require.Equal(t, "5", d.CPUTune.VCPUPin[1].CPUSet)
	require.Equal(t, "7", d.CPUTune.EmulatorPin.CPUSet)
	in.CPUSet = []int{3, 5}
	_, err = Build(in)
	require.ErrorContains(t, err, "the pod has 2 dedicated CPUs, the guest needs 3")
}

func TestAutoIOThreadsSpreadDisksOverTwiceTheVCPUs(t *testing.T) {
	in := baseInput(baseVMI())
	auto := kubevirtv1.IOThreadsPolicyAuto
	in.VMI.Spec.Domain.IOThreadsPolicy = &auto
	for _, n := range []string{"a", "b", "c"} {
		in.VMI.Spec.Domain.Devices.Disks = append(in.VMI.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: n})
		in.VMI.Spec.Volumes = append(in.VMI.Spec.Volumes, kubevirtv1.Volume{Name: n})
		in.Sources[n] = Source{Path: "/d/" + n}
	}
	d, err := Build(in)
	require.NoError(t, err)
	require.Equal(t, uint(2), d.IOThreads, "one vCPU: at most two threads for four virtio disks")
	var ids []uint
	for _, disk := range d.Devices.Disks {
		if disk.Driver.IOThread != nil {
			ids = append(ids, *disk.Driver.IOThread)
		}
	}
	require.Equal(t, []uint{1, 2, 1, 2}, ids, "the cdrom (sata) gets none")
}
