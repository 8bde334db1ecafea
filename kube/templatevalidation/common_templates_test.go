package templatevalidation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// The testdata rules are the vm.kubevirt.io/validations annotations of
// common templates v0.34.1 (amd64), as bundled by ssp-operator v0.26.0.
func templateRules(t *testing.T, name string) []Rule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	require.NoError(t, err)
	return mustParse(t, string(data))
}

// windows11VM is the VM of the windows11-desktop-medium template.
const windows11VM = `
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: win11
spec:
  template:
    spec:
      domain:
        cpu: {cores: 2, sockets: 1, threads: 1}
        devices:
          disks:
          - name: rootdisk
            disk: {bus: sata}
        memory: {guest: 4Gi}
`

const (
	virtioWarning = "virtio disk bus type has better performance, install virtio drivers in VM and change bus type"
	diskBusField  = ".spec.domain.devices.disks[*].disk.bus"
)

// windows11Cases edit windows11VM and expect what the windows11 rules
// deny and warn about.
var windows11Cases = []struct {
	name     string
	edit     func(*kubevirtv1.VirtualMachineInstanceSpec)
	causes   []metav1.StatusCause
	warnings []string
}{
	{name: "as the template creates it: sata root disk only warns",
		warnings: []string{virtioWarning + ": Some of [sata] are not in [virtio]"}},
	{name: "virtio disks and a sata cdrom pass silently", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("rootdisk", "virtio"), cdrom("install", "sata")}
	}},
	{name: "usb disk bus denies, with the virtio advice among the causes", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("rootdisk", "virtio"), disk("stick", "usb")}
	}, causes: []metav1.StatusCause{
		cause(diskBusField, virtioWarning+": Some of [virtio, usb] are not in [virtio]"),
		cause(diskBusField, "disk bus has to be either virtio or sata or scsi: Some of [virtio, usb] are not in [virtio, sata, scsi]"),
	}, warnings: []string{virtioWarning + ": Some of [virtio, usb] are not in [virtio]"}},
	{name: "scsi cdrom denies", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("rootdisk", "virtio"), cdrom("install", "scsi")}
	}, causes: []metav1.StatusCause{
		cause(".spec.domain.devices.disks[*].cdrom.bus", "cd bus has to be sata: Some of [scsi] are not in [sata]"),
	}},
	{name: "too little memory and one core", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("rootdisk", "virtio")}
		s.Domain.Memory.Guest = resource.NewQuantity(2<<30, resource.BinarySI)
		s.Domain.CPU.Cores = 1
	}, causes: []metav1.StatusCause{
		cause(".spec.domain.memory.guest", "This VM requires more memory.: value 2147483648 is lower than minimum [4294967296]"),
		cause(".spec.domain.cpu.cores", "This VM requires more cores.: value 1 is lower than minimum [2]"),
	}},
	{name: "no cpu section reads zero cores", edit: func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Disks = []kubevirtv1.Disk{disk("rootdisk", "virtio")}
		s.Domain.CPU = nil
	}, causes: []metav1.StatusCause{
		cause(".spec.domain.cpu.cores", "This VM requires more cores.: value 0 is lower than minimum [2]"),
	}},
}

func TestWindows11TemplateRules(t *testing.T) {
	rules := templateRules(t, "windows11")
	for _, tc := range windows11Cases {
		t.Run(tc.name, func(t *testing.T) {
			vm := vmFromYAML(t, windows11VM)
			if tc.edit != nil {
				tc.edit(&vm.Spec.Template.Spec)
			}
			res := Evaluate(vm, rules)
			require.Equal(t, tc.causes, res.Causes)
			require.Equal(t, tc.warnings, res.Warnings)
		})
	}
}

func TestWindows2k16DiskOnlyVMSkipsTheCDRule(t *testing.T) {
	vm := vmFromYAML(t, windows11VM)
	res := Evaluate(vm, templateRules(t, "windows2k16"))
	require.False(t, res.Denied())
	require.Equal(t, []Report{
		{Rule: "minimal-required-memory", Outcome: Satisfied, Detail: "All values [4294967296] are in interval [536870912, N/A]"},
		{Rule: "windows-virtio-bus", Outcome: Unsatisfied, Detail: "Some of [sata] are not in [virtio]"},
		{Rule: "windows-disk-bus", Outcome: Satisfied, Detail: "All [sata] are in [virtio, sata, scsi]"},
		{Rule: "windows-cd-bus", Outcome: Skipped},
	}, res.Reports)
}

func TestLinuxTemplatesMinimalMemory(t *testing.T) {
	cases := []struct {
		template, guest string
		causes          []metav1.StatusCause
	}{
		{"fedora", "2Gi", nil},
		{"fedora", "1Gi", []metav1.StatusCause{cause(".spec.domain.memory.guest",
			"This VM requires more memory.: value 1073741824 is lower than minimum [2147483648]")}},
		{"fedora", "2G", []metav1.StatusCause{cause(".spec.domain.memory.guest",
			"This VM requires more memory.: value 2000000000 is lower than minimum [2147483648]")}},
		{"centos6", "512Mi", nil},
		{"centos6", "128M", []metav1.StatusCause{cause(".spec.domain.memory.guest",
			"This VM requires more memory.: value 128000000 is lower than minimum [536870912]")}},
	}
	for _, tc := range cases {
		t.Run(tc.template+"/"+tc.guest, func(t *testing.T) {
			res := Evaluate(vmWith(t, memoryGuest(tc.guest)), templateRules(t, tc.template))
			require.Equal(t, tc.causes, res.Causes)
		})
	}
}

func TestMemoryGivenOnlyAsRequestReadsZeroGuest(t *testing.T) {
	// The templates check memory.guest; a VM sizing memory through
	// resources.requests alone reads the reference's zero quantity.
	vm := vmWith(t, func(s *kubevirtv1.VirtualMachineInstanceSpec) { s.Domain.Memory = nil })
	res := Evaluate(vm, templateRules(t, "fedora"))
	require.Equal(t, []metav1.StatusCause{cause(".spec.domain.memory.guest",
		"This VM requires more memory.: value 0 is lower than minimum [2147483648]")}, res.Causes)
}
