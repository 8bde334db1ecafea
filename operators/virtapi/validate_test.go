package virtapi

import (
	"strings"
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

func TestValidateVMISpec(t *testing.T) {
	one, other := uint(1), uint(1)
	cases := []struct {
		name   string
		mutate func(*kubevirtv1.VirtualMachineInstanceSpec)
		want   []string
	}{
		{"valid", func(*kubevirtv1.VirtualMachineInstanceSpec) {}, nil},
		{"disk without volume", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks = append(s.Domain.Devices.Disks, kubevirtv1.Disk{Name: "data"})
		}, []string{"spec.domain.devices.disks[1].name 'data' not found."}},
		{"duplicate disks", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks = append(s.Domain.Devices.Disks, kubevirtv1.Disk{Name: "root"})
		}, []string{"spec.domain.devices.disks[1].name and spec.domain.devices.disks[0].name must not have the same Name."}},
		{"duplicate volumes", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Volumes = append(s.Volumes, s.Volumes[0])
		}, []string{"spec.volumes[1].name and spec.volumes[0].name must not have the same Name."}},
		{"requests above limits", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Memory = nil
			s.Domain.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
			s.Domain.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
		}, []string{"spec.domain.resources.requests.memory '2Gi' is greater than spec.domain.resources.limits.memory '1Gi'"}},
		{"unsupported bus", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "ide"}
		}, []string{"IDE bus is not supported"}},
		{"unknown bus", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{Bus: "floppy"}
		}, []string{"spec.domain.devices.disks[0].disk.bus is set with an unrecognized bus floppy, must be one of: [virtio sata scsi usb]"}},
		{"virtio cdrom", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].CDRom = &kubevirtv1.CDRomTarget{Bus: kubevirtv1.DiskBusVirtio}
		}, []string{"Bus type virtio is invalid for CD-ROM device"}},
		{"two target types", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].Disk = &kubevirtv1.DiskTarget{}
			s.Domain.Devices.Disks[0].CDRom = &kubevirtv1.CDRomTarget{}
		}, []string{"spec.domain.devices.disks[0] can only have a single target type defined"}},
		{"same boot order", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Volumes = append(s.Volumes, kubevirtv1.Volume{Name: "b"})
			s.Domain.Devices.Disks[0].BootOrder = &one
			s.Domain.Devices.Disks = append(s.Domain.Devices.Disks, kubevirtv1.Disk{Name: "b", BootOrder: &other})
		}, []string{"Boot order for spec.domain.devices.disks[0].bootOrder already set for a different device."}},
		{"interface without network", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "nic0"}}
		}, []string{"spec.domain.devices.interfaces[0].name 'nic0' not found."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := validSpec()
			c.mutate(&s)
			causes := ValidateVMISpec(field.NewPath("spec"), &s)
			var got []string
			for _, cs := range causes {
				got = append(got, cs.Message)
			}
			require.Equal(t, c.want, got)
		})
	}
}

func TestValidateVMSpec(t *testing.T) {
	tmpl := &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: validSpec()}
	yes := true
	always := kubevirtv1.RunStrategyAlways
	bogus := kubevirtv1.VirtualMachineRunStrategy("Sometimes")
	require.Empty(t, ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Template: tmpl}))
	require.Empty(t, ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{Running: &yes, Template: tmpl}))
	both := ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{Running: &yes, RunStrategy: &always, Template: tmpl})
	require.Equal(t, "spec.running", both[0].Field)
	require.True(t, strings.HasPrefix(both[0].Message, "Running and RunStrategy are mutually exclusive"))
	neither := ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{Template: tmpl})
	require.Equal(t, "One of Running or RunStrategy must be specified", neither[0].Message)
	require.Equal(t, "Invalid RunStrategy (Sometimes)", ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{RunStrategy: &bogus, Template: tmpl})[0].Message)

	bad := validSpec()
	bad.Domain.Memory = nil
	require.Empty(t, ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: bad}}),
		"a template need not bring memory: an instancetype may, and the VMI is checked when it starts")
	require.Equal(t, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired,
		Message: "no memory requested, at least one of 'spec.domain.memory.guest', 'spec.domain.memory.hugepages.pageSize' or 'spec.domain.resources.requests.memory' must be set"}},
		ValidateVMIMandatory(field.NewPath("spec"), &bad))
	bad.Domain.Devices.Disks = append(bad.Domain.Devices.Disks, kubevirtv1.Disk{Name: "data"})
	causes := ValidateVMSpec(&kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: bad}})
	require.Equal(t, "spec.template.spec.domain.devices.disks[1].name", causes[0].Field, "template problems point into the template")
}

func TestDefaults(t *testing.T) {
	s := validSpec()
	s.Domain.Devices.Disks = append(s.Domain.Devices.Disks, kubevirtv1.Disk{Name: "ci", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{}}})
	s.Volumes = append(s.Volumes, kubevirtv1.Volume{Name: "ci", VolumeSource: kubevirtv1.VolumeSource{
		CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: "#cloud-config"}}})
	SetVMIDefaults(&s)
	require.Equal(t, "q35", s.Domain.Machine.Type)
	require.Equal(t, kubevirtv1.DiskBusVirtio, s.Domain.Devices.Disks[0].Disk.Bus)
	require.Equal(t, kubevirtv1.DiskBusSATA, s.Domain.Devices.Disks[1].CDRom.Bus)
	require.Equal(t, "default", s.Domain.Devices.Interfaces[0].Name)
	require.NotNil(t, s.Domain.Devices.Interfaces[0].Masquerade)
	require.NotNil(t, s.Networks[0].Pod)
	require.Nil(t, s.TerminationGracePeriodSeconds, "left unset: the launcher gives 30s, as upstream")
	require.Equal(t, "128Mi", s.Domain.Resources.Requests.Memory().String())

	off := false
	s2 := validSpec()
	s2.Domain.Devices.AutoattachPodInterface = &off
	SetVMIDefaults(&s2)
	require.Empty(t, s2.Domain.Devices.Interfaces, "opting out of the pod network is honoured")
	require.Empty(t, ValidateVMISpec(field.NewPath("spec"), &s), "defaulted specs validate")
}
