package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// hypervDep is a Hyper-V enlightenment and the one it needs.
type hypervDep struct {
	state    **kubevirtv1.FeatureState
	name     string
	requires *hypervDep
}

func featureMissing(fs *kubevirtv1.FeatureState) bool { return fs == nil || fs.Enabled == nil }
func featureOn(fs *kubevirtv1.FeatureState) bool      { return !featureMissing(fs) && *fs.Enabled }

// hypervDeps lists h's dependencies leaves first. The SyNIC timer and TLB
// flush states are copies, as their types carry more than a FeatureState;
// what they require is h's own.
func hypervDeps(h *kubevirtv1.FeatureHyperv) []hypervDep {
	vpindex := &hypervDep{state: &h.VPIndex, name: "vpindex"}
	vapic := &hypervDep{state: &h.VAPIC, name: "vapic"}
	synic := &hypervDep{state: &h.SyNIC, name: "synic", requires: vpindex}
	timer := &kubevirtv1.FeatureState{}
	if h.SyNICTimer != nil {
		timer.Enabled = h.SyNICTimer.Enabled
	}
	var tlb *kubevirtv1.FeatureState
	if h.TLBFlush != nil {
		tlb = &kubevirtv1.FeatureState{Enabled: h.TLBFlush.Enabled}
	}
	return []hypervDep{
		{&h.EVMCS, "evmcs", vapic}, {&h.IPI, "ipi", vpindex}, {&tlb, "tlbflush", vpindex}, {&timer, "synictimer", synic}, *synic,
	}
}

// withHypervDefaults applies what upstream's VMI defaults do before its
// validation runs: enable what an enabled enlightenment needs unless the
// user disabled it (stopping at the first such), then require vmx for
// eVMCS.
func withHypervDefaults(spec *kubevirtv1.VirtualMachineInstanceSpec) *kubevirtv1.VirtualMachineInstanceSpec {
	cp := spec.DeepCopy()
	h := cp.Domain.Features.Hyperv
	for _, dep := range hypervDeps(h) {
		if !featureOn(*dep.state) || dep.requires == nil {
			continue
		}
		req := dep.requires.state
		if featureMissing(*req) {
			if *req == nil {
				*req = &kubevirtv1.FeatureState{}
			}
			on := true
			(*req).Enabled = &on
			continue
		}
		if !featureOn(*req) {
			return cp
		}
	}
	if h.EVMCS != nil && (h.EVMCS.Enabled == nil || *h.EVMCS.Enabled) {
		requireVMX(cp)
	}
	return cp
}

func requireVMX(spec *kubevirtv1.VirtualMachineInstanceSpec) {
	if spec.Domain.CPU == nil {
		spec.Domain.CPU = &kubevirtv1.CPU{}
	}
	for i, feat := range spec.Domain.CPU.Features {
		if feat.Name == "vmx" {
			spec.Domain.CPU.Features[i].Policy = "require"
			return
		}
	}
	spec.Domain.CPU.Features = append(spec.Domain.CPU.Features, kubevirtv1.CPUFeature{Name: "vmx", Policy: "require"})
}

// validateHyperv checks the enlightenments' dependencies as they stand
// once defaulted, and that passthrough is not mixed with explicit ones.
// hf is spec.domain.features.hyperv; upstream appends domain.features.hyperv
// to it once more for the dependencies' fields, which the causes keep.
func validateHyperv(hf *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	features := spec.Domain.Features
	if features == nil || features.Hyperv == nil {
		return nil
	}
	spec = withHypervDefaults(spec)
	h := spec.Domain.Features.Hyperv
	deps := hf.Child("domain", "features", "hyperv")
	var causes []metav1.StatusCause
	for _, dep := range hypervDeps(h) {
		if featureOn(*dep.state) && dep.requires != nil && !featureOn(*dep.requires.state) {
			causes = append(causes, cause(deps.Child(dep.name), "'%s' requires '%s', which was disabled.", deps.Child(dep.name), deps.Child(dep.requires.name)))
		}
	}
	causes = append(causes, validateEVMCS(spec)...)
	if features.HypervPassthrough != nil {
		causes = append(causes, cause(hf, "Cannot explicitly set hyperV features if HypervPassthrough is being used. Please use either HyperV or HypervPassthrough."))
	}
	return causes
}

// validateEVMCS wants vmx required when eVMCS is on; upstream names the
// fields from spec whatever the path checked.
func validateEVMCS(spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	e := spec.Domain.Features.Hyperv.EVMCS
	if e == nil || (e.Enabled != nil && !*e.Enabled) {
		return nil
	}
	if spec.Domain.CPU == nil || len(spec.Domain.CPU.Features) == 0 {
		return one(causeOf(metav1.CauseTypeFieldValueRequired, field.NewPath("spec", "domain", "cpu", "features"), "vmx cpu feature is required when evmcs is set"))
	}
	var causes []metav1.StatusCause
	for i, feat := range spec.Domain.CPU.Features {
		if feat.Name == "vmx" && feat.Policy != "require" {
			causes = append(causes, cause(field.NewPath("spec", "domain", "cpu", "features").Index(i).Child("policy"), "vmx cpu feature has to be set to require policy"))
		}
	}
	return causes
}
