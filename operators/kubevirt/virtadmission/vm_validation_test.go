package virtadmission

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

func validVM() *kubevirtv1.VirtualMachineSpec {
	always := kubevirtv1.RunStrategyAlways
	return &kubevirtv1.VirtualMachineSpec{RunStrategy: &always, Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{Spec: validSpec()}}
}

func dataVolumeTemplate(name string, spec cdiv1.DataVolumeSpec) kubevirtv1.DataVolumeTemplateSpec {
	return kubevirtv1.DataVolumeTemplateSpec{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
}

type vmCase struct {
	name   string
	mutate func(*kubevirtv1.VirtualMachineSpec)
	want   []metav1.StatusCause
}

func runVMCases(t *testing.T, cases []vmCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vm := validVM()
			c.mutate(vm)
			require.Equal(t, c.want, upstreamsOnly(ValidateVMSpec(vm)))
		})
	}
}

func TestValidateVMSpec(t *testing.T) {
	yes := true
	bogus := kubevirtv1.VirtualMachineRunStrategy("Sometimes")
	receiver := kubevirtv1.RunStrategyWaitAsReceiver
	runVMCases(t, []vmCase{
		{"valid", func(*kubevirtv1.VirtualMachineSpec) {}, nil},
		{"deprecated running alone", func(vm *kubevirtv1.VirtualMachineSpec) { vm.RunStrategy, vm.Running = nil, &yes }, nil},
		{"no template", func(vm *kubevirtv1.VirtualMachineSpec) { vm.Template = nil },
			[]metav1.StatusCause{required("spec.template", "missing virtual machine template.")}},
		{"running and runStrategy", func(vm *kubevirtv1.VirtualMachineSpec) { vm.Running = &yes },
			[]metav1.StatusCause{invalid("spec.running", "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead")}},
		{"neither", func(vm *kubevirtv1.VirtualMachineSpec) { vm.RunStrategy = nil },
			[]metav1.StatusCause{invalid("spec.running", "RunStrategy must be specified")}},
		{"unknown strategy", func(vm *kubevirtv1.VirtualMachineSpec) { vm.RunStrategy = &bogus },
			[]metav1.StatusCause{invalid("spec.runStrategy", "Invalid RunStrategy (Sometimes)")}},
		{"wait as receiver, its gate on by default", func(vm *kubevirtv1.VirtualMachineSpec) { vm.RunStrategy = &receiver }, nil},
		{"template problems point into the template, before the run strategy's", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.RunStrategy = nil
			addDisk(&vm.Template.Spec, kubevirtv1.Disk{Name: "data"}, nil)
		}, []metav1.StatusCause{
			invalid("spec.template.spec.domain.devices.disks[1].name", "spec.template.spec.domain.devices.disks[1].Name 'data' not found."),
			invalid("spec.running", "RunStrategy must be specified")}},
		{"template labels only KubeVirt sets", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.Template.ObjectMeta.Labels = map[string]string{kubevirtv1.NodeSchedulable: "true"}
		}, []metav1.StatusCause{notSupportedCause("spec.template.metadata.labels", "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited")}},
		{"discontinued binding, alone", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.RunStrategy = nil
			vm.Template.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "a",
				InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{DeprecatedMacvtap: &kubevirtv1.DeprecatedInterfaceMacvtap{}}}}
		}, []metav1.StatusCause{invalid("spec.domain.devices.interfaces[0].macvtap", "Macvtap network binding has been discontinued since v1.3")}},
		{"sockets above maxSockets, twice as upstream", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.Template.Spec.Domain.CPU = &kubevirtv1.CPU{Sockets: 4, MaxSockets: 2}
		}, []metav1.StatusCause{
			invalid("spec.template.spec.domain.cpu.sockets", "Number of sockets in CPU topology is greater than the maximum sockets allowed"),
			invalid("spec.template.spec.domain.cpu.sockets", "Number of sockets in CPU topology is greater than the maximum sockets allowed")}},
		{"maxGuest with a guest too small to hotplug", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.Template.Spec.Architecture = "amd64"
			vm.Template.Spec.Domain.Memory.MaxGuest = resource.NewQuantity(1<<30, resource.BinarySI)
		}, []metav1.StatusCause{invalid("spec.template.spec.domain.memory.guest", "Memory hotplug is only available for VMs with at least 1Gi of guest memory")}},
	})
}

func TestValidateVMSpecDataVolumeTemplates(t *testing.T) {
	storage := &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
	blank := &cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}}
	runVMCases(t, []vmCase{
		{"DataVolume template in use", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{dataVolumeTemplate("root-dv", cdiv1.DataVolumeSpec{Source: blank, Storage: storage})}
			vm.Template.Spec.Volumes[0].VolumeSource = kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "root-dv"}}
		}, nil},
		{"DataVolume template unused", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{dataVolumeTemplate("spare", cdiv1.DataVolumeSpec{Source: blank, Storage: storage})}
		}, []metav1.StatusCause{required("spec.dataVolumeTemplate[0]", "DataVolumeTemplate entry spec.dataVolumeTemplate[0] must be referenced in the VMI template's 'volumes' list")}},
		{"malformed DataVolume templates", func(vm *kubevirtv1.VirtualMachineSpec) {
			vm.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{
				dataVolumeTemplate("", cdiv1.DataVolumeSpec{}),
				dataVolumeTemplate("a", cdiv1.DataVolumeSpec{Source: blank}),
				dataVolumeTemplate("b", cdiv1.DataVolumeSpec{Storage: storage}),
				dataVolumeTemplate("c", cdiv1.DataVolumeSpec{Storage: storage, Source: &cdiv1.DataVolumeSource{}}),
				dataVolumeTemplate("d", cdiv1.DataVolumeSpec{Storage: storage, Source: &cdiv1.DataVolumeSource{
					Blank: &cdiv1.DataVolumeBlankImage{}, HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://x"}}}),
			}
		}, []metav1.StatusCause{
			required("spec.dataVolumeTemplate[0].name", "'name' field must not be empty for DataVolumeTemplate entry spec.dataVolumeTemplate[0].name."),
			invalid("spec.dataVolumeTemplate[1].PVC.Storage", "Missing Data volume PVC or Storage"),
			invalid("spec.dataVolumeTemplate[2].source.sourceRef", "Data volume should have either Source, SourceRef, or be externally populated"),
			invalid("spec.dataVolumeTemplate[3].source", "Missing dataVolume valid source"),
			invalid("spec.dataVolumeTemplate[4].source", "Multiple dataVolume sources")}},
	})
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
}
