package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// validateProbes checks both probes, then that HTTP and TCP probes have
// the pod network to reach the guest through.
func validateProbes(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	causes := validateProbe(f.Child("readinessProbe"), spec.ReadinessProbe)
	causes = append(causes, validateProbe(f.Child("livenessProbe"), spec.LivenessProbe)...)
	for _, n := range spec.Networks {
		if n.Pod != nil {
			return causes
		}
	}
	causes = append(causes, probeNeedsPodNetwork(f.Child("readinessProbe"), spec.ReadinessProbe)...)
	return append(causes, probeNeedsPodNetwork(f.Child("livenessProbe"), spec.LivenessProbe)...)
}

func validateProbe(p *field.Path, probe *kubevirtv1.Probe) []metav1.StatusCause {
	if probe == nil {
		return nil
	}
	n := 0
	for _, set := range []bool{probe.HTTPGet != nil, probe.TCPSocket != nil, probe.Exec != nil, probe.GuestAgentPing != nil} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return one(cause(p, "%s must have exactly one probe type set", p))
	case n < 1:
		return one(causeOf(metav1.CauseTypeFieldValueRequired, p, "either %s, %s or %s must be set if a %s is specified",
			p.Child("tcpSocket"), p.Child("exec"), p.Child("httpGet"), p))
	}
	return nil
}

func probeNeedsPodNetwork(p *field.Path, probe *kubevirtv1.Probe) []metav1.StatusCause {
	if probe == nil {
		return nil
	}
	var causes []metav1.StatusCause
	if probe.HTTPGet != nil {
		causes = append(causes, cause(p.Child("httpGet"), "%s is only allowed if the Pod Network is attached", p.Child("httpGet")))
	}
	if probe.TCPSocket != nil {
		causes = append(causes, cause(p.Child("tcpSocket"), "%s is only allowed if the Pod Network is attached", p.Child("tcpSocket")))
	}
	return causes
}

func validateUtilityVolumes(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.UtilityVolumes == nil {
		return nil
	}
	return one(cause(f.Child("utilityVolumes"), "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug"))
}

// validateRamFB allows one vGPU display with ramfb; upstream's message
// ends in a space and its field is spec.GPUs.
func validateRamFB(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	n := 0
	for _, gpu := range spec.Domain.Devices.GPUs {
		o := gpu.VirtualGPUOptions
		if o == nil || o.Display == nil || (o.Display.Enabled != nil && !*o.Display.Enabled) {
			continue
		}
		if rf := o.Display.RamFB; rf == nil || (rf.Enabled != nil && *rf.Enabled) {
			n++
		}
	}
	if n > 1 {
		return one(cause(f.Child("GPUs"), "configuring multiple displays with ramfb is not valid "))
	}
	return nil
}

func validateSound(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	s := spec.Domain.Devices.Sound
	if s == nil {
		return nil
	}
	var causes []metav1.StatusCause
	if s.Model != "" && s.Model != "ich9" && s.Model != "ac97" {
		causes = append(causes, cause(f.Child("Sound"), "Sound device type is not supported. Options: 'ich9' or 'ac97'"))
	}
	if s.Name == "" {
		causes = append(causes, cause(f.Child("Sound"), "Sound device requires a name field."))
	}
	return causes
}

// validateLaunchSecurity: confidential computing needs a gate no default
// deployment turns on, so past counting the types chosen it refuses.
// Upstream's checks once the gate is on (firmware, SMM, Secure Boot, boot
// from NICs) are not made here.
func validateLaunchSecurity(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	ls := spec.Domain.LaunchSecurity
	if ls == nil {
		return nil
	}
	p := f.Child("launchSecurity")
	switch spec.Architecture {
	case "amd64":
	case "s390x":
		if !gateEnabled(gateSecureExecution) {
			return one(gateOffCause(p, gateSecureExecution))
		}
		return nil
	default:
		return one(cause(f.Child("architecture"), "No launchSecurity support for architecture: %s", spec.Architecture))
	}
	var types []string
	gate := ""
	for _, t := range []struct {
		set        bool
		name, gate string
	}{{ls.SEV != nil, "SEV", gateSEV}, {ls.SNP != nil, "SNP", gateSEV}, {ls.TDX != nil, "TDX", gateTDX}} {
		if t.set {
			types, gate = append(types, t.name), t.gate
		}
	}
	if len(types) != 1 {
		return one(causeOf(metav1.CauseTypeForbidden, p, "One and only one launchSecurity type can be set"))
	}
	if !gateEnabled(gate) {
		return one(gateOffCause(p, gate))
	}
	return nil
}
