package virtadmission

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func onAMD64(mutate func(*kubevirtv1.VirtualMachineInstanceSpec)) func(*kubevirtv1.VirtualMachineInstanceSpec) {
	return func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Architecture = "amd64"
		mutate(s)
	}
}

func hyperv(h kubevirtv1.FeatureHyperv) func(*kubevirtv1.VirtualMachineInstanceSpec) {
	return func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Features = &kubevirtv1.Features{Hyperv: &h}
	}
}

func TestValidateVMIMandatory(t *testing.T) {
	on, off := true, false
	state := func(b *bool) *kubevirtv1.FeatureState { return &kubevirtv1.FeatureState{Enabled: b} }
	const hv = "spec.domain.features.hyperv.domain.features.hyperv."
	runSpecCases(t, []specCase{
		{"valid", onAMD64(func(*kubevirtv1.VirtualMachineInstanceSpec) {}), nil},
		{"no memory", onAMD64(func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Memory = nil }), []metav1.StatusCause{{
			Type:    metav1.CauseTypeFieldValueRequired,
			Message: "no memory requested, at least one of 'spec.domain.memory.guest', 'spec.domain.memory.hugepages.pageSize' or 'spec.domain.resources.requests.memory' must be set"}}},
		{"unknown architecture", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Architecture = "riscv64" },
			[]metav1.StatusCause{invalid("spec.architecture", "unsupported architecture: riscv64")}},
		{"amd64 devices", onAMD64(func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Watchdog = &kubevirtv1.Watchdog{Name: "w", WatchdogDevice: kubevirtv1.WatchdogDevice{Diag288: &kubevirtv1.Diag288Watchdog{}}}
			s.Domain.Devices.Video = &kubevirtv1.VideoDevice{Type: "qxl"}
		}), []metav1.StatusCause{notSupportedCause("spec.domain.devices.watchdog", "amd64 only supports I6300ESB watchdog device"),
			notSupportedCause("spec.domain.devices.video.type", "video model 'qxl' is not supported on amd64 architecture")}},
		{"arm64 devices", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Architecture = "arm64"
			s.Domain.CPU = &kubevirtv1.CPU{Model: "Haswell"}
			s.Domain.Devices.Disks[0].CDRom = &kubevirtv1.CDRomTarget{Bus: "sata"}
		}, []metav1.StatusCause{notSupportedCause("spec.domain.cpu.model", "currently, host-passthrough is the only model supported on Arm64"),
			notSupportedCause("spec.domain.devices.disks[0].cdrom.bus", "Arm64 not support this disk bus type, please use virtio or scsi")}},
		{"Hyper-V requirements the defaults fill", onAMD64(hyperv(kubevirtv1.FeatureHyperv{
			SyNICTimer: &kubevirtv1.SyNICTimer{FeatureState: kubevirtv1.FeatureState{Enabled: &on}}, IPI: state(&on), EVMCS: state(nil)})), nil},
		{"Hyper-V requirements disabled", onAMD64(hyperv(kubevirtv1.FeatureHyperv{
			SyNIC: state(&on), VPIndex: state(&off), EVMCS: state(&on), VAPIC: state(&off)})), []metav1.StatusCause{
			invalid(hv+"evmcs", "'"+hv+"evmcs' requires '"+hv+"vapic', which was disabled."),
			invalid(hv+"synic", "'"+hv+"synic' requires '"+hv+"vpindex', which was disabled."),
			required("spec.domain.cpu.features", "vmx cpu feature is required when evmcs is set")}},
		{"Hyper-V with passthrough", onAMD64(func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Features = &kubevirtv1.Features{Hyperv: &kubevirtv1.FeatureHyperv{}, HypervPassthrough: &kubevirtv1.HyperVPassthrough{}}
		}), []metav1.StatusCause{invalid("spec.domain.features.hyperv",
			"Cannot explicitly set hyperV features if HypervPassthrough is being used. Please use either HyperV or HypervPassthrough.")}},
	}, ValidateVMIMandatory)
}

func TestValidateVMICreate(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Name: "v",
		Labels:      map[string]string{kubevirtv1.NodeNameLabel: "n"},
		Annotations: map[string]string{kubevirtv1.IgnitionAnnotation: "{}"}}, Spec: validSpec()}
	vmi.Spec.Architecture = "amd64"
	vmi.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{bridgeIface("nic0")}
	require.Equal(t, []metav1.StatusCause{
		invalid("spec.domain.devices.interfaces[0].name", "spec.domain.devices.interfaces[0].name 'nic0' not found."),
		invalid("spec.domain.devices.interfaces[0].name", "spec.domain.devices.interfaces[0].name 'nic0' not found."),
		notSupportedCause("metadata.labels", "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited"),
		invalid("metadata.annotations", "ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry metadata.annotations.kubevirt.io/ignitiondata"),
	}, ValidateVMICreate(vmi), "the network checks run twice, as virt-api registers them ahead of the spec's")
}

// TestDefaultedSpecsValidate: what the mutating webhook produces from
// commonly written specs passes validation.
func TestDefaultedSpecsValidate(t *testing.T) {
	cases := map[string]func(*kubevirtv1.VirtualMachineInstanceSpec){
		"bare": func(*kubevirtv1.VirtualMachineInstanceSpec) {},
		"cdrom and cloud-init": func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "cd", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{}}},
				&kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "iso"}})
			addDisk(s, kubevirtv1.Disk{Name: "cloudinit"}, &kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: "#cloud-config"}})
		},
		"secondary network": func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Interfaces = []kubevirtv1.Interface{masqueradeIface("default"), bridgeIface("data")}
			s.Networks = []kubevirtv1.Network{podNet("default"), multusNet("data", "ns/br")}
		},
		"LUN on a claim": func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "lun", DiskDevice: kubevirtv1.DiskDevice{LUN: &kubevirtv1.LunTarget{}}},
				&kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{}})
			s.Volumes[1].PersistentVolumeClaim.ClaimName = "c"
		},
		"dedicated CPUs": func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.CPU = &kubevirtv1.CPU{Cores: 2, DedicatedCPUPlacement: true}
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			s := validSpec()
			mutate(&s)
			SetVMIDefaults(&s)
			f := field.NewPath("spec")
			require.Empty(t, upstreamsOnly(ValidateVMISpec(f, &s)))
			require.Empty(t, ValidateVMIMandatory(f, &s))
			always := kubevirtv1.RunStrategyAlways
			require.Empty(t, upstreamsOnly(ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: s}})))
		})
	}
}
