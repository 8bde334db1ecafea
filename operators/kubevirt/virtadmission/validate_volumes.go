package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// volumeCounts tallies the volume types a VMI may have one of at most.
type volumeCounts struct{ serviceAccounts, downwardMetrics, memoryDumps int }

// validateVolumes checks each volume (unique name, one source, the
// source's own fields), then the kinds a VMI may have only one of.
func validateVolumes(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	p := f.Child("volumes")
	seen := map[string]int{}
	var counts volumeCounts
	var causes []metav1.StatusCause
	for i, v := range spec.Volumes {
		if j, ok := seen[v.Name]; ok {
			causes = append(causes, cause(p.Index(i).Child("name"), "%s and %s must not have the same Name.", p.Index(i), p.Index(j)))
		} else {
			seen[v.Name] = i
		}
		causes = append(causes, validateVolumeSource(p.Index(i), v, &counts)...)
		causes = append(causes, validateCloudInit(p.Index(i), v)...)
		causes = append(causes, validateVolumeFields(p.Index(i), v)...)
	}
	for _, c := range []struct {
		n    int
		kind string
	}{{counts.serviceAccounts, "serviceAccount"}, {counts.downwardMetrics, "downwardMetric"}, {counts.memoryDumps, "memory dump"}} {
		if c.n > 1 {
			causes = append(causes, cause(p, "%s must have max one %s volume set", p, c.kind))
		}
	}
	return causes
}

// validateVolumeSource wants exactly one source on volume p.
func validateVolumeSource(p *field.Path, v kubevirtv1.Volume, counts *volumeCounts) []metav1.StatusCause {
	s := v.VolumeSource
	var causes []metav1.StatusCause
	if s.DataVolume != nil && s.DataVolume.Name == "" {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, p.Child("name"), "DataVolume 'name' must be set"))
	}
	n := 0
	for _, set := range []bool{
		s.PersistentVolumeClaim != nil, s.Sysprep != nil, s.CloudInitNoCloud != nil, s.CloudInitConfigDrive != nil,
		s.ContainerDisk != nil, s.Ephemeral != nil, s.EmptyDisk != nil, s.HostDisk != nil, s.DataVolume != nil,
		s.ConfigMap != nil, s.Secret != nil, s.DownwardAPI != nil, s.ServiceAccount != nil, s.DownwardMetrics != nil,
		s.MemoryDump != nil, s.ContainerPath != nil,
	} {
		if set {
			n++
		}
	}
	if s.ServiceAccount != nil {
		counts.serviceAccounts++
	}
	if s.DownwardMetrics != nil {
		counts.downwardMetrics++
	}
	if s.MemoryDump != nil {
		counts.memoryDumps++
	}
	if n != 1 {
		causes = append(causes, cause(p, "%s must have exactly one source type set", p))
	}
	return causes
}

// validateVolumeFields checks what a volume's source needs: gates, a host
// disk's path and type, the names of what it mounts.
func validateVolumeFields(p *field.Path, v kubevirtv1.Volume) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if v.DownwardMetrics != nil && !gateEnabled(gateDownwardMetrics) {
		causes = append(causes, cause(p, "downwardMetrics disks are not allowed: DownwardMetrics feature gate is not enabled."))
	}
	if v.HostDisk != nil {
		causes = append(causes, validateHostDisk(p, v.HostDisk)...)
	}
	if v.ConfigMap != nil && v.ConfigMap.Name == "" {
		causes = append(causes, cause(p.Child("configMap", "name"), requiredFieldFmt, p.Child("configMap", "name")))
	}
	if v.Secret != nil && v.Secret.SecretName == "" {
		causes = append(causes, cause(p.Child("secret", "secretName"), requiredFieldFmt, p.Child("secret", "secretName")))
	}
	if v.ServiceAccount != nil && v.ServiceAccount.ServiceAccountName == "" {
		n := p.Child("serviceAccount", "serviceAccountName")
		causes = append(causes, cause(n, requiredFieldFmt, n))
	}
	return causes
}

func validateHostDisk(p *field.Path, hd *kubevirtv1.HostDisk) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if !gateEnabled(gateHostDisk) {
		causes = append(causes, cause(p, "HostDisk feature gate is not enabled"))
	}
	hp := p.Child("hostDisk")
	if hd.Path == "" {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueNotFound, hp.Child("path"), "%s is required for hostDisk volume", hp.Child("path")))
	}
	if hd.Type != kubevirtv1.HostDiskExists && hd.Type != kubevirtv1.HostDiskExistsOrCreate {
		causes = append(causes, cause(hp.Child("type"), "%s has invalid value '%s', allowed are '%s' or '%s'",
			hp.Child("type"), hd.Type, kubevirtv1.HostDiskExists, kubevirtv1.HostDiskExistsOrCreate))
	}
	if hd.Type == kubevirtv1.HostDiskExists && !hd.Capacity.IsZero() {
		causes = append(causes, cause(hp.Child("capacity"), "%s is allowed to pass only with %s equal to '%s'",
			hp.Child("capacity"), hp.Child("type"), kubevirtv1.HostDiskExistsOrCreate))
	}
	return causes
}
