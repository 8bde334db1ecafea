package instancetype

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
)

func TestTopologyFollowsThePreference(t *testing.T) {
	two, four := uint32(2), uint32(4)
	topo := func(p v1beta1.PreferredCPUTopology) *v1beta1.PreferredCPUTopology { return &p }
	across := func(a v1beta1.SpreadAcross) *v1beta1.SpreadAcross { return &a }
	cases := []struct {
		name  string
		pref  *v1beta1.VirtualMachinePreferenceSpec
		vcpus uint32
		want  [3]uint32 // sockets, cores, threads
	}{
		{"sockets by default", nil, 4, [3]uint32{4, 1, 1}},
		{"one vCPU is always 1/1/1", &v1beta1.VirtualMachinePreferenceSpec{CPU: &v1beta1.CPUPreferences{PreferredCPUTopology: topo(v1beta1.Cores)}}, 1, [3]uint32{1, 1, 1}},
		{"cores", &v1beta1.VirtualMachinePreferenceSpec{CPU: &v1beta1.CPUPreferences{PreferredCPUTopology: topo(v1beta1.Cores)}}, 4, [3]uint32{1, 4, 1}},
		{"threads", &v1beta1.VirtualMachinePreferenceSpec{CPU: &v1beta1.CPUPreferences{PreferredCPUTopology: topo(v1beta1.DeprecatedPreferThreads)}}, 4, [3]uint32{1, 1, 4}},
		{"spread defaults to 2 across sockets and cores", &v1beta1.VirtualMachinePreferenceSpec{CPU: &v1beta1.CPUPreferences{PreferredCPUTopology: topo(v1beta1.Spread)}}, 8, [3]uint32{4, 2, 1}},
		{"spread across cores and threads", &v1beta1.VirtualMachinePreferenceSpec{CPU: &v1beta1.CPUPreferences{PreferredCPUTopology: topo(v1beta1.Spread),
			SpreadOptions: &v1beta1.SpreadOptions{Across: across(v1beta1.SpreadAcrossCoresThreads), Ratio: &two}}}, 8, [3]uint32{1, 4, 2}},
		{"spread across all three", &v1beta1.VirtualMachinePreferenceSpec{CPU: &v1beta1.CPUPreferences{PreferredCPUTopology: topo(v1beta1.Spread),
			SpreadOptions: &v1beta1.SpreadOptions{Across: across(v1beta1.SpreadAcrossSocketsCoresThreads), Ratio: &four}}}, 16, [3]uint32{2, 4, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			it := &v1beta1.VirtualMachineInstancetypeSpec{CPU: v1beta1.CPUInstancetype{Guest: c.vcpus}, Memory: v1beta1.MemoryInstancetype{Guest: resource.MustParse("1Gi")}}
			spec := &kubevirtv1.VirtualMachineInstanceSpec{}
			require.Empty(t, Apply(field.NewPath("spec"), it, c.pref, spec, &metav1.ObjectMeta{}))
			cpu := spec.Domain.CPU
			require.Equal(t, c.want, [3]uint32{cpu.Sockets, cpu.Cores, cpu.Threads})
		})
	}
}

func TestInstancetypeOwnsWhatItSetsAndOvercommits(t *testing.T) {
	max := uint32(8)
	it := &v1beta1.VirtualMachineInstancetypeSpec{
		CPU:          v1beta1.CPUInstancetype{Guest: 2, MaxSockets: &max},
		Memory:       v1beta1.MemoryInstancetype{Guest: resource.MustParse("1Gi"), OvercommitPercent: 25},
		NodeSelector: map[string]string{"zone": "a"}, SchedulerName: "fast",
		Annotations: map[string]string{"team": "blue"},
	}
	spec := &kubevirtv1.VirtualMachineInstanceSpec{}
	meta := &metav1.ObjectMeta{Annotations: map[string]string{"team": "blue"}}
	require.Empty(t, Apply(field.NewPath("spec"), it, nil, spec, meta), "the same annotation value is no conflict")
	require.Equal(t, "1Gi", spec.Domain.Memory.Guest.String())
	require.Equal(t, int64(805306368), spec.Domain.Resources.Requests.Memory().Value(), "25 % overcommitted")
	require.Equal(t, uint32(8), spec.Domain.CPU.MaxSockets)
	require.Equal(t, map[string]string{"zone": "a"}, spec.NodeSelector)
	require.Equal(t, "fast", spec.SchedulerName)

	again := Apply(field.NewPath("spec"), it, nil, spec, meta)
	require.Equal(t, "spec.nodeSelector, spec.schedulerName, spec.domain.cpu.sockets, spec.domain.cpu.cores, spec.domain.cpu.threads, spec.domain.memory.guest",
		again.Paths(), "applying twice conflicts on everything it set")
	require.EqualError(t, again[:1].VMIError(), "VMI conflicts with instancetype spec in fields: [spec.nodeSelector]")
}

func TestPreferenceFillsOnlyWhatIsUnset(t *testing.T) {
	yes, no := true, false
	grace := int64(180)
	sub := "web"
	arch := "amd64"
	pref := &v1beta1.VirtualMachinePreferenceSpec{
		Devices: &v1beta1.DevicePreferences{PreferredDiskBus: kubevirtv1.DiskBusSATA, PreferredCdromBus: kubevirtv1.DiskBusSCSI,
			PreferredInterfaceModel: "e1000e", PreferredAutoattachSerialConsole: &no, PreferredDisableHotplug: &yes},
		Firmware:                               &v1beta1.FirmwarePreferences{DeprecatedPreferredUseEfi: &yes, DeprecatedPreferredUseSecureBoot: &no},
		Machine:                                &v1beta1.MachinePreferences{PreferredMachineType: "pc-q35-rhel9"},
		Features:                               &v1beta1.FeaturePreferences{PreferredAcpi: &kubevirtv1.FeatureState{Enabled: &no}, PreferredSmm: &kubevirtv1.FeatureState{}},
		PreferredTerminationGracePeriodSeconds: &grace, PreferredSubdomain: &sub, PreferredArchitecture: &arch,
		Annotations: map[string]string{"os": "fedora", "owner": "pref"},
	}
	spec := &kubevirtv1.VirtualMachineInstanceSpec{Domain: kubevirtv1.DomainSpec{
		Features: &kubevirtv1.Features{ACPI: kubevirtv1.FeatureState{Enabled: &yes}},
		Devices: kubevirtv1.Devices{
			Disks: []kubevirtv1.Disk{{Name: "root"}, {Name: "cd", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{}}},
				{Name: "fast", DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: kubevirtv1.DiskBusVirtio}}}},
			Interfaces: []kubevirtv1.Interface{{Name: "default", Model: "virtio"}},
		}}}
	meta := &metav1.ObjectMeta{Annotations: map[string]string{"owner": "vm"}}
	require.Empty(t, Apply(field.NewPath("spec"), nil, pref, spec, meta))
	d := spec.Domain
	require.Equal(t, kubevirtv1.DiskBusSATA, d.Devices.Disks[0].Disk.Bus, "a disk without a target gets one and the preferred bus")
	require.Equal(t, kubevirtv1.DiskBusSCSI, d.Devices.Disks[1].CDRom.Bus)
	require.Equal(t, kubevirtv1.DiskBusVirtio, d.Devices.Disks[2].Disk.Bus, "the VM's bus stays")
	require.Equal(t, "virtio", d.Devices.Interfaces[0].Model, "the VM's model stays")
	require.False(t, *d.Devices.AutoattachSerialConsole)
	require.True(t, d.Devices.DisableHotplug)
	require.NotNil(t, d.Firmware.Bootloader.EFI)
	require.False(t, *d.Firmware.Bootloader.EFI.SecureBoot)
	require.Equal(t, "pc-q35-rhel9", d.Machine.Type)
	require.False(t, *d.Features.ACPI.Enabled, "ACPI cannot tell unset from set: the preference wins, as upstream")
	require.NotNil(t, d.Features.SMM)
	require.Equal(t, grace, *spec.TerminationGracePeriodSeconds)
	require.Equal(t, "web", spec.Subdomain)
	require.Equal(t, "amd64", spec.Architecture)
	require.Equal(t, map[string]string{"os": "fedora", "owner": "vm"}, meta.Annotations)
}
