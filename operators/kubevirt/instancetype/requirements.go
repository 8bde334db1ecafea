package instancetype

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
)

const vmCPUFormat = "insufficient CPU resources of %d vCPU provided by VirtualMachine, preference requires %d vCPU provided as %s"

// RequirementsCause checks the preference's requirements against the
// instancetype (when found) or the VM's own defaulted spec, in upstream's
// order (CPU, memory, architecture), and returns upstream's single cause
// for the first unmet one, or nil.
func RequirementsCause(it *v1beta1.VirtualMachineInstancetypeSpec, pref *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) *metav1.StatusCause {
	if pref == nil || pref.Requirements == nil {
		return nil
	}
	r := pref.Requirements
	var cs Conflicts
	var err error
	if r.CPU != nil {
		cs, err = checkCPU(it, pref, spec)
	}
	if err == nil && r.Memory != nil {
		cs, err = checkMemory(it, r.Memory.Guest, spec)
	}
	if err == nil && r.Architecture != nil && spec.Architecture != *r.Architecture {
		cs = Conflicts{{field.NewPath("spec", "template", "spec", "architecture")}}
		err = fmt.Errorf("preference requires architecture %s but %s is being requested", *r.Architecture, spec.Architecture)
	}
	if err == nil {
		return nil
	}
	return &metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotFound,
		Message: fmt.Sprintf("failure checking preference requirements: %v", err), Field: cs.Paths()}
}

func checkCPU(it *v1beta1.VirtualMachineInstancetypeSpec, pref *v1beta1.VirtualMachinePreferenceSpec, spec *kubevirtv1.VirtualMachineInstanceSpec) (Conflicts, error) {
	want := pref.Requirements.CPU.Guest
	if it != nil {
		if it.CPU.Guest < want {
			return Conflicts{{field.NewPath("spec", "instancetype")}}, fmt.Errorf(
				"insufficient CPU resources of %d vCPU provided by instance type, preference requires %d vCPU", it.CPU.Guest, want)
		}
		return nil, nil
	}
	base := field.NewPath("spec", "template", "spec", "domain", "cpu")
	c := spec.Domain.CPU
	if c == nil {
		return Conflicts{{base}}, fmt.Errorf("no CPU resources provided by VirtualMachine, preference requires %d vCPU", want)
	}
	paths := func(names ...string) Conflicts {
		cs := make(Conflicts, len(names))
		for i, n := range names {
			cs[i] = Conflict{base.Child(n)}
		}
		return cs
	}
	var have uint32
	var cs Conflicts
	var as string
	switch topo := PreferredTopology(pref); topo {
	case v1beta1.Threads, v1beta1.DeprecatedPreferThreads:
		have, cs, as = c.Threads, paths("threads"), "threads"
	case v1beta1.Cores, v1beta1.DeprecatedPreferCores:
		have, cs, as = c.Cores, paths("cores"), "cores"
	case v1beta1.Spread, v1beta1.DeprecatedPreferSpread:
		_, across := SpreadOptions(pref)
		have, cs = spreadVCPUs(c, across)
		as = string(across)
	case v1beta1.Any, v1beta1.DeprecatedPreferAny:
		have, cs, as = c.Cores*c.Sockets*c.Threads, paths("cores", "sockets", "threads"), "cores, sockets and threads"
	default:
		have, cs, as = c.Sockets, paths("sockets"), "sockets"
	}
	if have < want {
		return cs, fmt.Errorf(vmCPUFormat, have, want, as)
	}
	return nil, nil
}

func spreadVCPUs(c *kubevirtv1.CPU, across v1beta1.SpreadAcross) (uint32, Conflicts) {
	base := field.NewPath("spec", "template", "spec", "domain", "cpu")
	s, co, t := Conflict{base.Child("sockets")}, Conflict{base.Child("cores")}, Conflict{base.Child("threads")}
	switch across {
	case v1beta1.SpreadAcrossSocketsCores:
		return c.Sockets * c.Cores, Conflicts{s, co}
	case v1beta1.SpreadAcrossCoresThreads:
		return c.Cores * c.Threads, Conflicts{co, t}
	case v1beta1.SpreadAcrossSocketsCoresThreads:
		return c.Sockets * c.Cores * c.Threads, Conflicts{s, co, t}
	}
	return 0, nil
}

func checkMemory(it *v1beta1.VirtualMachineInstancetypeSpec, want resource.Quantity, spec *kubevirtv1.VirtualMachineInstanceSpec) (Conflicts, error) {
	format := "insufficient Memory resources of %s provided by VirtualMachine, preference requires %s"
	path := field.NewPath("spec", "template", "spec", "domain", "memory")
	have := resource.MustParse("0Mi")
	if it != nil {
		format = "insufficient Memory resources of %s provided by instance type, preference requires %s"
		path, have = field.NewPath("spec", "instancetype"), it.Memory.Guest
	}
	if spec.Domain.Memory != nil && spec.Domain.Memory.Guest != nil {
		have = *spec.Domain.Memory.Guest
	}
	if have.Cmp(want) < 0 {
		return Conflicts{{path}}, fmt.Errorf(format, have.String(), want.String())
	}
	return nil, nil
}

// SpreadCause checks that the instancetype's vCPUs divide as a spreading
// preference lays them out; nil when they do or nothing spreads.
func SpreadCause(it *v1beta1.VirtualMachineInstancetypeSpec, pref *v1beta1.VirtualMachinePreferenceSpec) *metav1.StatusCause {
	if it == nil || pref == nil {
		return nil
	}
	if t := PreferredTopology(pref); t != v1beta1.Spread && t != v1beta1.DeprecatedPreferSpread {
		return nil
	}
	ratio, across := SpreadOptions(pref)
	guest := it.CPU.Guest
	var msg string
	switch {
	case ratio == 0:
		return nil
	case across == v1beta1.SpreadAcrossSocketsCores && guest%ratio > 0:
		msg = fmt.Sprintf("%d vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of %d provided by the preference", guest, ratio)
	case across == v1beta1.SpreadAcrossCoresThreads && guest%ratio > 0:
		msg = fmt.Sprintf("%d vCPUs provided by the instance type are not divisible by the number of threads per core %d", guest, ratio)
	case across == v1beta1.SpreadAcrossSocketsCoresThreads && (guest%2 > 0 || (guest/2)%ratio > 0):
		msg = fmt.Sprintf("%d vCPUs provided by the instance type are not divisible by the number of threads per core %d and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of %d", guest, 2, ratio)
	default:
		return nil
	}
	return &metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: msg, Field: "instancetype.spec.cpu.guest"}
}
