package virtadmission

import (
	"runtime"
	"sync/atomic"

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

// defaultGates are the gates virt-api takes as on whatever the KubeVirt CR
// says: what HCO always sets plus the HyperConverged gates that default to
// true. Other gates are off, and upstream's refusal for them applies,
// unless the KubeVirt CR turns on one of liveGates.
var defaultGates = map[string]bool{
	"CPUManager": true, "Snapshot": true, "ExpandDisks": true, "HostDevices": true, "VMExport": true,
	"KubevirtSeccompProfile": true, "WithHostModelCPU": true, "HypervStrictCheck": true,
	"DecentralizedLiveMigration": true, gateVideoConfig: true, "HotplugVolumes": true,
}

// liveGates are the gates the KubeVirt CR may turn on (HCO's
// kubevirt.kubevirt.io/jsonpatch annotation is how a HyperConverged user
// does): only those whose feature virtflow has. A gate whose feature is
// missing stays off whatever the CR says, so what it guards is refused
// rather than accepted and not done.
var liveGates = map[string]bool{gatePasstBinding: true}

// crGates are the live gates the cluster's KubeVirt CR turns on, as virt-api
// last saw it.
var crGates atomic.Pointer[map[string]bool]

// SetFeatureGates records the gates of the KubeVirt CR virt-api watches;
// nil (no CR) turns the live gates off.
func SetFeatureGates(kv *kubevirtv1.KubeVirt) {
	on := map[string]bool{}
	if kv != nil && kv.Spec.Configuration.DeveloperConfiguration != nil {
		for _, g := range kv.Spec.Configuration.DeveloperConfiguration.FeatureGates {
			if liveGates[g] {
				on[g] = true
			}
		}
	}
	crGates.Store(&on)
}

// gateEnabled tells whether virt-api takes the gate as on.
func gateEnabled(gate string) bool {
	if defaultGates[gate] {
		return true
	}
	on := crGates.Load()
	return on != nil && (*on)[gate]
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
	if a := spec.Domain.Devices.AutoattachVSOCK; a == nil || !*a || gateEnabled(gateVSOCK) {
		return nil
	}
	return one(gateOffCause(f.Child("domain", "devices", "autoattachVSOCK"), gateVSOCK))
}

func validatePersistentReservation(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if gateEnabled(gatePersistentReserve) {
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
	if spec.Domain.Devices.DownwardMetrics == nil || gateEnabled(gateDownwardMetrics) {
		return nil
	}
	return one(cause(f.Child("domain", "devices", "downwardMetrics"),
		"downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled"))
}

// validateFilesystems refuses virtiofs on claims without the gate.
func validateFilesystems(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if gateEnabled(gateVirtiofsStorage) {
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
	if !gateEnabled(gateVideoConfig) {
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
	if !gateEnabled(gatePanicDevices) {
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
	if spec.Domain.RebootPolicy == nil || gateEnabled(gateRebootPolicy) {
		return nil
	}
	return one(cause(f.Child("domain", "rebootPolicy"), "RebootPolicy is specified but the %s feature gate is not enabled", gateRebootPolicy))
}

func validateReservedOverhead(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	m := spec.Domain.Memory
	if m == nil || m.ReservedOverhead == nil || gateEnabled(gateReservedOverhead) {
		return nil
	}
	return one(cause(f.Child("domain", "memory", "reservedOverhead"), "Reserved overhead memlock feature gate is not enabled in kubevirt-config"))
}
