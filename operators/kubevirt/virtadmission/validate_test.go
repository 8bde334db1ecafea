package virtadmission

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func validSpec() kubevirtv1.VirtualMachineInstanceSpec {
	mem := resource.MustParse("128Mi")
	return kubevirtv1.VirtualMachineInstanceSpec{
		Domain: kubevirtv1.DomainSpec{
			Memory:  &kubevirtv1.Memory{Guest: &mem},
			Devices: kubevirtv1.Devices{Disks: []kubevirtv1.Disk{{Name: "root"}}},
		},
		Volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{
			ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "virtflow/test-guest"}}}},
	}
}

func invalid(f, msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: f, Message: msg}
}

func required(f, msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Field: f, Message: msg}
}

func duplicate(f, msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueDuplicate, Field: f, Message: msg}
}

func notSupportedCause(f, msg string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotSupported, Field: f, Message: msg}
}

type specCase struct {
	name   string
	mutate func(*kubevirtv1.VirtualMachineInstanceSpec)
	want   []metav1.StatusCause
}

// runSpecCases checks each case's causes, in order, from validate on
// validSpec changed by the case.
func runSpecCases(t *testing.T, cases []specCase, validate func(*field.Path, *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := validSpec()
			c.mutate(&s)
			require.Equal(t, c.want, upstreamsOnly(validate(field.NewPath("spec"), &s)))
		})
	}
}

func addDisk(s *kubevirtv1.VirtualMachineInstanceSpec, d kubevirtv1.Disk, v *kubevirtv1.VolumeSource) {
	s.Domain.Devices.Disks = append(s.Domain.Devices.Disks, d)
	if v != nil {
		s.Volumes = append(s.Volumes, kubevirtv1.Volume{Name: d.Name, VolumeSource: *v})
	}
}

func emptyDisk() *kubevirtv1.VolumeSource {
	return &kubevirtv1.VolumeSource{EmptyDisk: &kubevirtv1.EmptyDiskSource{Capacity: resource.MustParse("1Gi")}}
}

func TestValidateVMISpecDisks(t *testing.T) {
	runSpecCases(t, []specCase{
		{"valid", func(*kubevirtv1.VirtualMachineInstanceSpec) {}, nil},
		{"disk without volume", func(s *kubevirtv1.VirtualMachineInstanceSpec) { addDisk(s, kubevirtv1.Disk{Name: "data"}, nil) },
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[1].name", "spec.domain.devices.disks[1].Name 'data' not found.")}},
		{"empty CD-ROM without its gate", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "cd", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{Bus: "sata"}}}, nil)
		}, []metav1.StatusCause{invalid("spec.domain.devices.disks[1].name", "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk")}},
		{"duplicate disks", func(s *kubevirtv1.VirtualMachineInstanceSpec) { addDisk(s, kubevirtv1.Disk{Name: "root"}, nil) },
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[1].name", "spec.domain.devices.disks[1] and spec.domain.devices.disks[0] must not have the same Name.")}},
		{"disk name not a DNS label", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "Bad_Name"}, emptyDisk())
		},
			[]metav1.StatusCause{invalid("spec.domain.devices.disks.domain.devices.disks[1].name", "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")}},
		{"PCI address", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "sata", PciAddress: "zz"}
		}, []metav1.StatusCause{
			invalid("spec.domain.devices.disks.domain.devices.disks.disk[0].pciAddress", "disk spec.domain.devices.disks.domain.devices.disks.disk[0].name - setting a PCI address is only possible with bus type virtio."),
			invalid("spec.domain.devices.disks.domain.devices.disks.disk[0].pciAddress", "disk spec.domain.devices.disks.domain.devices.disks.disk[0].name has malformed PCI address (zz).")}},
	}, ValidateVMISpec)
}

func TestValidateVMISpecDiskDevices(t *testing.T) {
	one, zero := uint(1), uint(0)
	yes := true
	runSpecCases(t, []specCase{
		{"IDE", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "ide"}
		},
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[0].disk.bus", "IDE bus is not supported")}},
		{"unknown bus", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "floppy"}
		},
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[0].disk.bus", "spec.domain.devices.disks[0] is set with an unrecognized bus floppy, must be one of: [virtio scsi sata usb]")}},
		{"virtio CD-ROM", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].CDRom = &kubevirtv1.CDRomTarget{Bus: kubevirtv1.DiskBusVirtio}
		}, []metav1.StatusCause{invalid("spec.domain.devices.disks[0].cdrom.bus", "Bus type virtio is invalid for CD-ROM device")}},
		{"read-only SATA disk", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "sata", ReadOnly: true}
		}, []metav1.StatusCause{invalid("spec.domain.devices.disks[0].disk.bus", "sata hard-disks do not support read-only.")}},
		{"dedicated IO thread off virtio", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "sata"}
			s.Domain.Devices.Disks[0].DedicatedIOThread = &yes
		}, []metav1.StatusCause{notSupportedCause("spec.domain.devices.disks.domain.devices.disks[0]", "IOThreads are not supported for disks on a sata bus")}},
		{"two target types", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{}
			s.Domain.Devices.Disks[0].CDRom = &kubevirtv1.CDRomTarget{}
		}, []metav1.StatusCause{invalid("spec.domain.devices.disks[0]", "spec.domain.devices.disks[0] can only have a single target type defined")}},
		{"LUN on a container disk", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].LUN = &kubevirtv1.LunTarget{}
		},
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[0].lun", "spec.domain.devices.disks[0].lun can only be mapped to a DataVolume or PersistentVolumeClaim volume.")}},
		{"boot order zero", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Devices.Disks[0].BootOrder = &zero },
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[0].bootOrder", "spec.domain.devices.disks[0] must have a boot order > 0, if supplied")}},
		{"same boot order", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].BootOrder = &one
			addDisk(s, kubevirtv1.Disk{Name: "b", BootOrder: &one}, emptyDisk())
		}, []metav1.StatusCause{invalid("spec.domain.devices.disks[1].bootOrder", "Boot order for spec.domain.devices.disks[1].bootOrder already set for a different device.")}},
		{"serial", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Devices.Disks[0].Serial = "a b" },
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[0].serial", "spec.domain.devices.disks[0] must be made up of the following characters [A-Za-z0-9_.+-], if specified")}},
		{"cache", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Devices.Disks[0].Cache = "unsafe" },
			[]metav1.StatusCause{invalid("spec.domain.devices.disks[0].cache", "spec.domain.devices.disks[0].cache has invalid value unsafe")}},
		{"IO mode", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Devices.Disks[0].IO = "fast" },
			[]metav1.StatusCause{notSupportedCause("spec.domain.devices.disks.domain.devices.disks[0].io", "Disk IO mode for spec.domain.devices.disks is not supported. Supported modes are: native, threads.")}},
		{"block size below SATA's", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "sata"}
			s.Domain.Devices.Disks[0].BlockSize = &kubevirtv1.BlockSize{Custom: &kubevirtv1.CustomBlockSize{Logical: 4096, Physical: 4096}}
		}, []metav1.StatusCause{invalid("spec.domain.devices.disks[0].blockSize.custom.logical", "Logical size 4096 must be 512 for SATA devices")}},
	}, ValidateVMISpec)
}

func TestValidateVMISpecVolumes(t *testing.T) {
	runSpecCases(t, []specCase{
		{"duplicate volumes", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Volumes = append(s.Volumes, s.Volumes[0]) },
			[]metav1.StatusCause{invalid("spec.volumes[1].name", "spec.volumes[1] and spec.volumes[0] must not have the same Name.")}},
		{"two sources", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Volumes[0].EmptyDisk = &kubevirtv1.EmptyDiskSource{} },
			[]metav1.StatusCause{invalid("spec.volumes[0]", "spec.volumes[0] must have exactly one source type set")}},
		{"no source", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Volumes[0].ContainerDisk = nil },
			[]metav1.StatusCause{invalid("spec.volumes[0]", "spec.volumes[0] must have exactly one source type set")}},
		{"DataVolume without a name", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Volumes[0].VolumeSource = kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{}}
		}, []metav1.StatusCause{required("spec.volumes[0].name", "DataVolume 'name' must be set")}},
		{"host disk", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Volumes[0].VolumeSource = kubevirtv1.VolumeSource{HostDisk: &kubevirtv1.HostDisk{Path: "/x", Type: "Bogus"}}
		}, []metav1.StatusCause{invalid("spec.volumes[0]", "HostDisk feature gate is not enabled"),
			invalid("spec.volumes[0].hostDisk.type", "spec.volumes[0].hostDisk.type has invalid value 'Bogus', allowed are 'Disk' or 'DiskOrCreate'")}},
		{"nameless Secret", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "s"}, &kubevirtv1.VolumeSource{Secret: &kubevirtv1.SecretVolumeSource{}})
		}, []metav1.StatusCause{invalid("spec.volumes[1].secret.secretName", "spec.volumes[1].secret.secretName is a required field")}},
		{"container disk path", func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Volumes[0].ContainerDisk.Path = "/a/../b" },
			[]metav1.StatusCause{invalid("spec.volumes[0].containerDisk", "spec.volumes[0].containerDisk must be an absolute path to a file without relative components")}},
		{"cloud-init without data", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "ci"}, &kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{}})
		}, []metav1.StatusCause{invalid("spec.volumes[1].cloudInitNoCloud", "spec.volumes[1].cloudInitNoCloud must have at least one userdatasource or one networkdatasource set.")}},
		{"cloud-init user data twice", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "ci"}, &kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: "x", UserDataBase64: "eA=="}})
		}, []metav1.StatusCause{invalid("spec.volumes[1].cloudInitNoCloud", "spec.volumes[1].cloudInitNoCloud must have only one userdatasource set.")}},
		{"cloud-init bad base64", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "ci"}, &kubevirtv1.VolumeSource{CloudInitConfigDrive: &kubevirtv1.CloudInitConfigDriveSource{UserDataBase64: "!!!"}})
		}, []metav1.StatusCause{invalid("spec.volumes[1].cloudInitConfigDrive.userDataBase64",
			"spec.volumes[1].cloudInitConfigDrive.userDataBase64.cloudInitConfigDrive.userDataBase64 is not a valid base64 value.")}},
		{"cloud-init too large", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			big := string(make([]byte, 2049))
			addDisk(s, kubevirtv1.Disk{Name: "ci"}, &kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: big}})
		}, []metav1.StatusCause{invalid("spec.volumes[1].cloudInitNoCloud", "spec.volumes[1].cloudInitNoCloud userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data.")}},
		{"two service accounts", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			addDisk(s, kubevirtv1.Disk{Name: "a"}, &kubevirtv1.VolumeSource{ServiceAccount: &kubevirtv1.ServiceAccountVolumeSource{ServiceAccountName: "x"}})
			addDisk(s, kubevirtv1.Disk{Name: "b"}, &kubevirtv1.VolumeSource{ServiceAccount: &kubevirtv1.ServiceAccountVolumeSource{ServiceAccountName: "y"}})
		}, []metav1.StatusCause{invalid("spec.volumes", "spec.volumes must have max one serviceAccount volume set")}},
	}, ValidateVMISpec)
}

func TestValidateVMISpecMemory(t *testing.T) {
	res := func(s *kubevirtv1.VirtualMachineInstanceSpec, req, lim corev1.ResourceList) {
		s.Domain.Resources = kubevirtv1.ResourceRequirements{Requests: req, Limits: lim}
	}
	q := resource.MustParse
	runSpecCases(t, []specCase{
		{"request below 1M", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			res(s, corev1.ResourceList{corev1.ResourceMemory: q("100k")}, nil)
		},
			[]metav1.StatusCause{invalid("spec.domain.resources.requests.memory", "spec.domain.resources.requests.memory '100k': must be greater than or equal to 1M.")}},
		{"request above limit", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			res(s, corev1.ResourceList{corev1.ResourceMemory: q("2Gi")}, corev1.ResourceList{corev1.ResourceMemory: q("1Gi")})
		}, []metav1.StatusCause{invalid("spec.domain.resources.requests.memory", "spec.domain.resources.requests.memory '2Gi' is greater than spec.domain.resources.limits.memory '1Gi'")}},
		{"guest above the limit is for live updates to handle", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			res(s, nil, corev1.ResourceList{corev1.ResourceMemory: q("64Mi")})
		}, nil},
		{"negative limit", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			res(s, nil, corev1.ResourceList{corev1.ResourceMemory: q("-1")})
		},
			[]metav1.StatusCause{invalid("spec.domain.resources.limits.memory", "spec.domain.resources.limits.memory '-1': must be greater than or equal to 0.")}},
		{"memory smaller than a huge page", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Memory.Hugepages = &kubevirtv1.Hugepages{PageSize: "1Gi"}
			res(s, corev1.ResourceList{corev1.ResourceMemory: q("512Mi")}, nil)
		}, []metav1.StatusCause{invalid("spec.domain.resources.requests.memory", "spec.domain.resources.requests.memory '512Mi' must be equal to or larger than page size spec.domain.memory.hugepages.pageSize '1Gi'")}},
	}, ValidateVMISpec)
}

func TestValidateVMISpecCPU(t *testing.T) {
	res := func(s *kubevirtv1.VirtualMachineInstanceSpec, req, lim corev1.ResourceList) {
		s.Domain.Resources = kubevirtv1.ResourceRequirements{Requests: req, Limits: lim}
	}
	q := resource.MustParse
	runSpecCases(t, []specCase{
		{"CPU request above limit", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			res(s, corev1.ResourceList{corev1.ResourceCPU: q("2")}, corev1.ResourceList{corev1.ResourceCPU: q("1500m")})
		}, []metav1.StatusCause{invalid("spec.domain.resources.requests.cpu", "spec.domain.resources.requests.cpu '2' is greater than spec.domain.resources.limits.cpu '1500m'")}},
		{"dedicated CPUs want whole CPUs and fixed memory", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.CPU = &kubevirtv1.CPU{DedicatedCPUPlacement: true}
			res(s, corev1.ResourceList{corev1.ResourceCPU: q("1500m"), corev1.ResourceMemory: q("1Gi")},
				corev1.ResourceList{corev1.ResourceCPU: q("2500m"), corev1.ResourceMemory: q("2Gi")})
		}, []metav1.StatusCause{
			invalid("spec.domain.resources.requests.cpu", "provided resources CPU requests must be an interger"),
			invalid("spec.domain.resources.limits.cpu", "provided resources CPU limits must be an interger"),
			invalid("spec.domain.resources.requests.memory", "spec.domain.resources.requests.memory must be equal to spec.domain.resources.limits.memory"),
			invalid("spec.domain.cpu.dedicatedCpuPlacement", "spec.domain.resources.requests.cpu or spec.domain.resources.limits.cpu must be equal when DedicatedCPUPlacement is true ")}},
		{"isolated emulator thread", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.CPU = &kubevirtv1.CPU{IsolateEmulatorThread: true}
		},
			[]metav1.StatusCause{invalid("spec.domain.cpu.isolateEmulatorThread", "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement")}},
		{"sockets above maxSockets", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.CPU = &kubevirtv1.CPU{Sockets: 4, MaxSockets: 2}
		},
			[]metav1.StatusCause{invalid("spec.domain.cpu.sockets", "Number of sockets in CPU topology is greater than the maximum sockets allowed")}},
		{"CPU feature policy", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.CPU = &kubevirtv1.CPU{Features: []kubevirtv1.CPUFeature{{Name: "vmx", Policy: "maybe"}}}
		}, []metav1.StatusCause{notSupportedCause("spec.domain.cpu.features[0].policy", "CPU feature vmx uses policy maybe that is not supported.")}},
		{"machine type", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Architecture, s.Domain.Machine = "amd64", &kubevirtv1.Machine{Type: "pc-i440fx"}
		}, []metav1.StatusCause{invalid("spec.domain.machine.type", "spec.domain.machine.type is not supported: pc-i440fx (allowed values: [q35* pc-q35*])")}},
	}, ValidateVMISpec)
}
