package virtadmission

import (
	"runtime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// KubeVirt feature gates some checks depend on.
const (
	gateDeclarativeHotplug = "DeclarativeHotplugVolumes"
	gateDownwardMetrics    = "DownwardMetrics"
	gateHostDisk           = "HostDisk"
	gatePasstBinding       = "PasstBinding"
	gateVSOCK              = "VSOCK"
	gatePersistentReserve  = "PersistentReservation"
	gateVirtiofsStorage    = "EnableVirtioFsStorageVolumes"
	gateVideoConfig        = "VideoConfig"
	gatePanicDevices       = "PanicDevices"
	gateRebootPolicy       = "RebootPolicy"
	gateReservedOverhead   = "ReservedOverheadMemlock"
	gateSEV                = "WorkloadEncryptionSEV"
	gateTDX                = "WorkloadEncryptionTDX"
	gateSecureExecution    = "SecureExecution"
	gateIgnition           = "ExperimentalIgnitionSupport"
	gateSidecar            = "Sidecar"
)

// enabledGates are the gates virt-api takes as on. It does not read the
// KubeVirt CR, so it assumes what HCO deploys by default: the gates it
// always sets plus the HyperConverged gates that default to true. A gate
// missing here is off, and upstream's refusal for it applies.
var enabledGates = map[string]bool{
	"CPUManager": true, "Snapshot": true, "ExpandDisks": true, "HostDevices": true, "VMExport": true,
	"KubevirtSeccompProfile": true, "WithHostModelCPU": true, "HypervStrictCheck": true,
	"DecentralizedLiveMigration": true, gateVideoConfig: true, "HotplugVolumes": true,
}

// defaultArchitecture is what an unset architecture means, as upstream's
// cluster default.
var defaultArchitecture = runtime.GOARCH

// gateOffCause is upstream's most common wording for a feature whose gate
// is off.
func gateOffCause(f *field.Path, gate string) metav1.StatusCause {
	return cause(f, "%s feature gate is not enabled in kubevirt-config", gate)
}

func validateVSOCK(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if a := spec.Domain.Devices.AutoattachVSOCK; a == nil || !*a || enabledGates[gateVSOCK] {
		return nil
	}
	return one(gateOffCause(f.Child("domain", "devices", "autoattachVSOCK"), gateVSOCK))
}

func validatePersistentReservation(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if enabledGates[gatePersistentReserve] {
		return nil
	}
	for _, d := range spec.Domain.Devices.Disks {
		if d.LUN != nil && d.LUN.Reservation {
			return one(gateOffCause(f.Child("domain", "devices", "disks", "luns", "reservation"), gatePersistentReserve))
		}
	}
	return nil
}

func validateDownwardMetricsDevice(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.Domain.Devices.DownwardMetrics == nil || enabledGates[gateDownwardMetrics] {
		return nil
	}
	return one(cause(f.Child("domain", "devices", "downwardMetrics"),
		"downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled"))
}

// validateFilesystems refuses virtiofs on claims without the gate.
func validateFilesystems(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if enabledGates[gateVirtiofsStorage] {
		return nil
	}
	var causes []metav1.StatusCause
	for _, fs := range spec.Domain.Devices.Filesystems {
		v := volumeNamed(spec.Volumes, fs.Name)
		if v != nil && (v.PersistentVolumeClaim != nil || v.DataVolume != nil) {
			causes = append(causes, cause(f.Child("domain", "devices", "filesystems"),
				"virtiofs is not allowed: virtiofs feature gate is not enabled for PVC"))
		}
	}
	return causes
}

func volumeNamed(vols []kubevirtv1.Volume, name string) *kubevirtv1.Volume {
	for i := range vols {
		if vols[i].Name == name {
			return &vols[i]
		}
	}
	return nil
}

// validateVideo keeps upstream's field, which lacks domain.devices.
func validateVideo(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	devs := spec.Domain.Devices
	if devs.Video == nil {
		return nil
	}
	if !enabledGates[gateVideoConfig] {
		return one(cause(f.Child("video"), "Video configuration is specified but the %s feature gate is not enabled", gateVideoConfig))
	}
	if devs.AutoattachGraphicsDevice != nil && !*devs.AutoattachGraphicsDevice {
		return one(cause(f.Child("video"), "Video configuration is not allowed when autoattachGraphicsDevice is set to false"))
	}
	return nil
}

func validatePanicDevices(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	devs := spec.Domain.Devices.PanicDevices
	if len(devs) == 0 {
		return nil
	}
	p := f.Child("domain", "devices", "panicDevices")
	if !enabledGates[gatePanicDevices] {
		return one(cause(p, "Panic Devices feature gate is not enabled in kubevirt-config"))
	}
	var causes []metav1.StatusCause
	arch := spec.Architecture
	if arch == "" {
		arch = defaultArchitecture
	}
	if arch == "s390x" {
		causes = append(causes, cause(p, "custom panic devices are not supported on %s architecture", arch))
	}
	for i, d := range devs {
		if m := d.Model; m != nil && *m != kubevirtv1.Hyperv && *m != kubevirtv1.Isa && *m != kubevirtv1.Pvpanic {
			causes = append(causes, cause(p.Index(i).Child("model"), "invalid PanicDeviceModel(%s)", *m))
		}
	}
	return causes
}

func validateRebootPolicy(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.Domain.RebootPolicy == nil || enabledGates[gateRebootPolicy] {
		return nil
	}
	return one(cause(f.Child("domain", "rebootPolicy"), "RebootPolicy is specified but the %s feature gate is not enabled", gateRebootPolicy))
}

func validateReservedOverhead(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	m := spec.Domain.Memory
	if m == nil || m.ReservedOverhead == nil || enabledGates[gateReservedOverhead] {
		return nil
	}
	return one(cause(f.Child("domain", "memory", "reservedOverhead"), "Reserved overhead memlock feature gate is not enabled in kubevirt-config"))
}
