package templatevalidation

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// baseVM is a small VM like those created from common templates: two
// virtio disks, q35, 2Gi guest memory, 128M requested, no cpu section.
const baseVM = `
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-cirros
spec:
  template:
    spec:
      domain:
        devices:
          disks:
          - name: containerdisk
            disk: {bus: virtio}
          - name: cloudinitdisk
            disk: {bus: virtio}
        machine: {type: q35}
        memory: {guest: 2Gi}
        resources:
          requests: {memory: 128M}
`

func vmFromYAML(t *testing.T, doc string) *kubevirtv1.VirtualMachine {
	t.Helper()
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), vm))
	return vm
}

// vmWith is baseVM changed by edit.
func vmWith(t *testing.T, edit func(*kubevirtv1.VirtualMachineInstanceSpec)) *kubevirtv1.VirtualMachine {
	t.Helper()
	vm := vmFromYAML(t, baseVM)
	if edit != nil {
		edit(&vm.Spec.Template.Spec)
	}
	return vm
}

func mustParse(t *testing.T, rulesJSON string) []Rule {
	t.Helper()
	rules, err := Parse(rulesJSON)
	require.NoError(t, err)
	return rules
}

func cause(field, message string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: field, Message: message}
}

func disk(name string, bus kubevirtv1.DiskBus) kubevirtv1.Disk {
	return kubevirtv1.Disk{Name: name, DiskDevice: kubevirtv1.DiskDevice{Disk: &kubevirtv1.DiskTarget{Bus: bus}}}
}

func cdrom(name string, bus kubevirtv1.DiskBus) kubevirtv1.Disk {
	return kubevirtv1.Disk{Name: name, DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{Bus: bus}}}
}
