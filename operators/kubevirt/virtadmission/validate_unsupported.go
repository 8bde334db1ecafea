package virtadmission

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Gates of features virtflow does not have; they stay off, so upstream's
// refusal applies.
const (
	gateGPUsWithDRA           = "GPUsWithDRA"
	gateHostDevicesWithDRA    = "HostDevicesWithDRA"
	gateNetworkDevicesWithDRA = "NetworkDevicesWithDRA"
)

// notYetSuffix ends every refusal of what virtflow cannot do yet.
const notYetSuffix = " is not supported yet by this virtflow release"

// NotYet tells a refusal of what virtflow cannot do yet from upstream's
// own refusals.
func NotYet(c metav1.StatusCause) bool { return strings.HasSuffix(c.Message, notYetSuffix) }

// notInVirtflow words a refusal of a field upstream accepts and virtflow
// cannot honour yet, as virtflow's other refusals of that kind: accepted
// and dropped would be worse.
func notInVirtflow(f *field.Path, what string) metav1.StatusCause {
	return cause(f, "%s: %s"+notYetSuffix, f, what)
}

// validateDRA refuses devices and networks from resource claims, as
// upstream does while their gates are off.
func validateDRA(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	devs := f.Child("domain", "devices")
	for _, g := range spec.Domain.Devices.GPUs {
		if g.ClaimRequest != nil && !gateEnabled(gateGPUsWithDRA) {
			causes = append(causes, cause(devs.Child("gpus"), "vmi.spec.domain.devices.gpus contains DRA enabled GPUs but feature gate is not enabled"))
			break
		}
	}
	for _, h := range spec.Domain.Devices.HostDevices {
		if h.ClaimRequest != nil && !gateEnabled(gateHostDevicesWithDRA) {
			causes = append(causes, cause(devs.Child("hostDevices"), "vmi.spec.domain.devices.hostDevices contains DRA enabled HostDevices but feature gate is not enabled"))
			break
		}
	}
	for _, n := range spec.Networks {
		if n.ResourceClaim != nil && !gateEnabled(gateNetworkDevicesWithDRA) {
			causes = append(causes, cause(f.Child("networks"), "vmi.spec.networks contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled"))
			break
		}
	}
	return causes
}

// validateNotYet refuses what upstream has and virtflow does not yet:
// memory hotplug, NUMA passthrough, ACPI tables, persistent EFI and TPM
// state, LUNs,
// block sizes read from the volume, changed block tracking, device role
// tags, virtiofs, USB redirection, SR-IOV, exec and guest-agent probes,
// hotpluggable volumes, the volume sources the launcher cannot prepare,
// IPv6 masquerade and Multus default networks.
func validateNotYet(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	causes := notYetInDomain(f, spec)
	causes = append(causes, notYetInDisks(f, spec)...)
	causes = append(causes, notYetInDevices(f, spec)...)
	return append(causes, notYetInVolumesAndNetworks(f, spec)...)
}

func notYetInDomain(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	d := &spec.Domain
	if d.Memory != nil && d.Memory.MaxGuest != nil {
		causes = append(causes, notInVirtflow(f.Child("domain", "memory", "maxGuest"), "memory hotplug"))
	}
	if c := d.CPU; c != nil && c.NUMA != nil && c.NUMA.GuestMappingPassthrough != nil {
		causes = append(causes, notInVirtflow(f.Child("domain", "cpu", "numa", "guestMappingPassthrough"), "NUMA passthrough"))
	}
	if fw := d.Firmware; fw != nil && fw.ACPI != nil {
		causes = append(causes, notInVirtflow(f.Child("domain", "firmware", "acpi"), "ACPI SLIC and MSDM tables"))
	}
	if fw := d.Firmware; fw != nil && fw.Bootloader != nil && fw.Bootloader.EFI != nil && fw.Bootloader.EFI.Persistent != nil && *fw.Bootloader.EFI.Persistent {
		causes = append(causes, notInVirtflow(f.Child("domain", "firmware", "bootloader", "efi", "persistent"), "a persistent EFI variable store"))
	}
	for _, p := range []struct {
		name  string
		probe *kubevirtv1.Probe
	}{{"readinessProbe", spec.ReadinessProbe}, {"livenessProbe", spec.LivenessProbe}} {
		if p.probe != nil && (p.probe.Exec != nil || p.probe.GuestAgentPing != nil) {
			causes = append(causes, notInVirtflow(f.Child(p.name), "an exec or guest agent probe"))
		}
	}
	return causes
}

func notYetInDisks(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, disk := range spec.Domain.Devices.Disks {
		p := f.Child("domain", "devices", "disks").Index(i)
		if bs := disk.BlockSize; bs != nil && bs.MatchVolume != nil && (bs.MatchVolume.Enabled == nil || *bs.MatchVolume.Enabled) {
			causes = append(causes, notInVirtflow(p.Child("blockSize", "matchVolume"), "matching the volume's block size"))
		}
		if disk.ChangedBlockTracking != nil && *disk.ChangedBlockTracking {
			causes = append(causes, notInVirtflow(p.Child("changedBlockTracking"), "changed block tracking"))
		}
		if disk.Tag != "" {
			causes = append(causes, notInVirtflow(p.Child("tag"), "device role tagging"))
		}
		if disk.LUN != nil {
			causes = append(causes, notInVirtflow(p.Child("lun"), "a LUN disk"))
		}
	}
	return causes
}

func notYetInDevices(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	d := &spec.Domain.Devices
	devs := f.Child("domain", "devices")
	tagged := func(p *field.Path, tag string) {
		if tag != "" {
			causes = append(causes, notInVirtflow(p.Child("tag"), "device role tagging"))
		}
	}
	for i, iface := range d.Interfaces {
		tagged(devs.Child("interfaces").Index(i), iface.Tag)
		if iface.SRIOV != nil {
			causes = append(causes, notInVirtflow(devs.Child("interfaces").Index(i).Child("sriov"), "SR-IOV"))
		}
	}
	for i, g := range d.GPUs {
		tagged(devs.Child("gpus").Index(i), g.Tag)
	}
	for i, h := range d.HostDevices {
		tagged(devs.Child("hostDevices").Index(i), h.Tag)
	}
	if t := d.TPM; t != nil && t.Persistent != nil && *t.Persistent {
		causes = append(causes, notInVirtflow(devs.Child("tpm", "persistent"), "persistent TPM state"))
	}
	if len(d.Filesystems) > 0 {
		causes = append(causes, notInVirtflow(devs.Child("filesystems"), "virtiofs"))
	}
	if d.ClientPassthrough != nil {
		causes = append(causes, notInVirtflow(devs.Child("clientPassthrough"), "USB redirection"))
	}
	return causes
}

func notYetInVolumesAndNetworks(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, v := range spec.Volumes {
		p := f.Child("volumes").Index(i)
		if kind := volumeNotYet(v.VolumeSource); kind != "" {
			causes = append(causes, notInVirtflow(p.Child(kind), kind+" volume"))
		}
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.Hotpluggable {
			causes = append(causes, notInVirtflow(p.Child("persistentVolumeClaim", "hotpluggable"), "a hotpluggable volume"))
		}
		if v.DataVolume != nil && v.DataVolume.Hotpluggable {
			causes = append(causes, notInVirtflow(p.Child("dataVolume", "hotpluggable"), "a hotpluggable volume"))
		}
	}
	for i, n := range spec.Networks {
		p := f.Child("networks").Index(i)
		if n.Pod != nil && n.Pod.VMIPv6NetworkCIDR != "" {
			causes = append(causes, notInVirtflow(p.Child("pod", "vmIPv6NetworkCIDR"), "IPv6 masquerade"))
		}
		if n.Multus != nil && n.Multus.Default {
			causes = append(causes, notInVirtflow(p.Child("multus", "default"), "a Multus default network"))
		}
	}
	return causes
}

// volumeNotYet names a volume source the launcher cannot prepare yet
// (it prepares container disks, NoCloud seeds, empty disks and claims;
// host disks and downward metrics are refused by their gates).
func volumeNotYet(v kubevirtv1.VolumeSource) string {
	switch {
	case v.CloudInitConfigDrive != nil:
		return "cloudInitConfigDrive"
	case v.ConfigMap != nil:
		return "configMap"
	case v.Secret != nil:
		return "secret"
	case v.DownwardAPI != nil:
		return "downwardAPI"
	case v.ServiceAccount != nil:
		return "serviceAccount"
	case v.Ephemeral != nil:
		return "ephemeral"
	case v.Sysprep != nil:
		return "sysprep"
	case v.MemoryDump != nil:
		return "memoryDump"
	case v.ContainerPath != nil:
		return "containerPath"
	}
	return ""
}
