package fidelity

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// how is what becomes of a field that is set.
type how int

const (
	// inDomain: admitted, and the libvirt domain shows want.
	inDomain how = iota + 1
	// inPod: admitted, and the launcher pod shows want.
	inPod
	// refused: virt-api refuses it, want being part of its message.
	refused
	// atNode: admitted, and the node refuses to build the domain with
	// want, which the VMI's failure reports.
	atNode
	// byTest: honoured outside the domain and the launcher pod (volume
	// preparation, the network, virt-handler, the guest agent); want
	// names the test that proves it.
	byTest
)

// field is one spec field's entry.
type field struct {
	how how
	// value is what the field is set to; nil picks a generic value.
	value any
	// prep adds what the field needs besides itself.
	prep func(*kubevirtv1.VirtualMachineInstance)
	want string
	// gone: setting the field takes want away from the base.
	gone bool
}

func dom(want string) field         { return field{how: inDomain, want: want} }
func domV(v any, want string) field { return field{how: inDomain, value: v, want: want} }
func pod(v any, want string) field  { return field{how: inPod, value: v, want: want} }
func ref(v any, msg string) field   { return field{how: refused, value: v, want: msg} }
func by(test string) field          { return field{how: byTest, want: test} }

func (f field) with(prep func(*kubevirtv1.VirtualMachineInstance)) field { f.prep = prep; return f }
func (f field) removes() field                                           { f.gone = true; return f }

// notYet is virtflow's refusal of what it cannot do yet.
func notYet(what string) string { return what + " is not supported yet by this virtflow release" }

// volume adds a disk and a volume named v2 without a source, for a field
// that sets one.
func volume(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Disks = append(v.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "v2"})
	v.Spec.Volumes = append(v.Spec.Volumes, kubevirtv1.Volume{Name: "v2"})
}

func hyperv(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Features = &kubevirtv1.Features{Hyperv: &kubevirtv1.FeatureHyperv{}}
}

// dedicatedShape is what dedicated CPUs need: whole cores, memory
// requested as limited.
func dedicatedShape(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 2}
	guest := *v.Spec.Domain.Memory.Guest
	v.Spec.Domain.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: guest}
	v.Spec.Domain.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: guest}
}

func dedicatedCPUs(v *kubevirtv1.VirtualMachineInstance) {
	dedicatedShape(v)
	v.Spec.Domain.CPU.DedicatedCPUPlacement = true
}

func efiWithSMM(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Features = &kubevirtv1.Features{SMM: &kubevirtv1.FeatureState{}}
}

// tcpProbe gives the VMI a readiness and a liveness probe on port 22.
func tcpProbe(v *kubevirtv1.VirtualMachineInstance) {
	for _, p := range []**kubevirtv1.Probe{&v.Spec.ReadinessProbe, &v.Spec.LivenessProbe} {
		*p = &kubevirtv1.Probe{Handler: kubevirtv1.Handler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(22)}}}
	}
}

func quantity(s string) resource.Quantity { return resource.MustParse(s) }

// fields says, for every VMI spec field, what virtflow does with it.
var fields = mergeFields(domainFields, deviceFields, diskAndInterfaceFields, podFields, volumeFields)

func mergeFields(sets ...map[string]field) map[string]field {
	out := map[string]field{}
	for _, s := range sets {
		for k, v := range s {
			if _, dup := out[k]; dup {
				panic("fields lists " + k + " twice")
			}
			out[k] = v
		}
	}
	return out
}
