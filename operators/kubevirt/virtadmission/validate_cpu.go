package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func cpuRequestPath(f *field.Path) *field.Path {
	return f.Child("domain", "resources", "requests", "cpu")
}
func cpuLimitPath(f *field.Path) *field.Path { return f.Child("domain", "resources", "limits", "cpu") }
func dedicatedPath(f *field.Path) *field.Path {
	return f.Child("domain", "cpu", "dedicatedCpuPlacement")
}

func validateCPURequest(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if q := spec.Domain.Resources.Requests.Cpu(); q.MilliValue() < 0 {
		return one(cause(cpuRequestPath(f), mustBePositiveFmt, cpuRequestPath(f), q))
	}
	return nil
}

func validateCPULimit(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if q := spec.Domain.Resources.Limits.Cpu(); q.MilliValue() < 0 {
		return one(cause(cpuLimitPath(f), mustBePositiveFmt, cpuLimitPath(f), q))
	}
	return nil
}

func validateCPURequestLimit(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	req, lim := spec.Domain.Resources.Requests.Cpu(), spec.Domain.Resources.Limits.Cpu()
	if lim.MilliValue() > 0 && req.MilliValue() > lim.MilliValue() {
		return one(cause(cpuRequestPath(f), "%s '%s' is greater than %s '%s'", cpuRequestPath(f), req, cpuLimitPath(f), lim))
	}
	return nil
}

// vCPUs multiplies the topology's counts, an unset count not counting.
func vCPUs(c *kubevirtv1.CPU) int64 {
	if c == nil {
		return 0
	}
	var n int64
	for _, v := range []uint32{c.Cores, c.Sockets, c.Threads} {
		switch {
		case v == 0:
		case n == 0:
			n = int64(v)
		default:
			n *= int64(v)
		}
	}
	return n
}

// validateDedicatedCPUs checks that a VM pinned to dedicated CPUs asks for
// whole CPUs and a fixed amount of memory.
func validateDedicatedCPUs(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.Domain.CPU == nil || !spec.Domain.CPU.DedicatedCPUPlacement {
		return nil
	}
	causes := validateMemoryIsProvided(f, spec)
	req, lim := spec.Domain.Resources.Requests.Cpu(), spec.Domain.Resources.Limits.Cpu()
	if req.Value() > 0 && req.Value()*1000 != req.MilliValue() {
		causes = append(causes, cause(cpuRequestPath(f), "provided resources CPU requests must be an interger"))
	}
	if lim.Value() > 0 && lim.Value()*1000 != lim.MilliValue() {
		causes = append(causes, cause(cpuLimitPath(f), "provided resources CPU limits must be an interger"))
	}
	causes = append(causes, validateMemoryRequestEqualsLimit(f, spec)...)
	causes = append(causes, validateDedicatedCounts(f, spec)...)
	return append(causes, validateDedicatedThreads(f, spec)...)
}

// validateDedicatedCounts wants the vCPU count given once, consistently.
func validateDedicatedCounts(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	req, lim := spec.Domain.Resources.Requests.Cpu().Value(), spec.Domain.Resources.Limits.Cpu().Value()
	n := vCPUs(spec.Domain.CPU)
	cores := f.Child("domain", "cpu", "cores")
	var causes []metav1.StatusCause
	if req == 0 && lim == 0 && n == 0 {
		causes = append(causes, cause(dedicatedPath(f), "either %s or %s or %s must be provided when DedicatedCPUPlacement is true ",
			cpuRequestPath(f), cpuLimitPath(f), cores))
	}
	if req > 0 && lim > 0 && req != lim {
		causes = append(causes, cause(dedicatedPath(f), "%s or %s must be equal when DedicatedCPUPlacement is true ",
			cpuRequestPath(f), cpuLimitPath(f)))
	}
	if (req > 0 || lim > 0) && n > 0 && req != n && lim != n {
		causes = append(causes, cause(dedicatedPath(f), "%s or %s must not be provided at the same time with %s when DedicatedCPUPlacement is true ",
			cpuRequestPath(f), cpuLimitPath(f), cores))
	}
	return causes
}

func validateDedicatedThreads(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	threads := spec.Domain.CPU.Threads
	threadsPath := f.Child("domain", "cpu", "threads")
	arch := spec.Architecture
	if arch == "" {
		arch = defaultArchitecture
	}
	var causes []metav1.StatusCause
	if threads > 1 && arch == "arm64" {
		causes = append(causes, cause(f.Child("architecture"), "threads must not be greater than 1 at %v (got %v) when %v is arm64",
			threadsPath, threads, f.Child("architecture")))
	}
	if threads > 2 {
		causes = append(causes, cause(dedicatedPath(f), "Not more than two threads must be provided at %v (got %v) when DedicatedCPUPlacement is true",
			threadsPath, threads))
	}
	return causes
}

// validateNUMA: guest NUMA passthrough (its gate is GA) needs dedicated
// CPUs and hugepages.
func validateNUMA(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	c := spec.Domain.CPU
	if c == nil || c.NUMA == nil || c.NUMA.GuestMappingPassthrough == nil {
		return nil
	}
	p := f.Child("domain", "cpu", "numa", "guestMappingPassthrough")
	var causes []metav1.StatusCause
	if !c.DedicatedCPUPlacement {
		causes = append(causes, cause(p, "%s must be set to true when NUMA topology strategy is set in %s", dedicatedPath(f), p))
	}
	if spec.Domain.Memory == nil || spec.Domain.Memory.Hugepages == nil {
		causes = append(causes, cause(p, "%s must be requested when NUMA topology strategy is set in %s", f.Child("domain", "memory", "hugepages"), p))
	}
	return causes
}

func validateEmulatorThread(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if c := spec.Domain.CPU; c != nil && c.IsolateEmulatorThread && !c.DedicatedCPUPlacement {
		return one(cause(f.Child("domain", "cpu", "isolateEmulatorThread"), "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement"))
	}
	return nil
}

func validateCPUFeatures(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.Domain.CPU == nil {
		return nil
	}
	var causes []metav1.StatusCause
	for i, feat := range spec.Domain.CPU.Features {
		switch feat.Policy {
		case "", "force", "require", "optional", "disable", "forbid":
			continue
		}
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueNotSupported, f.Child("domain", "cpu", "features").Index(i).Child("policy"),
			"CPU feature %s uses policy %s that is not supported.", feat.Name, feat.Policy))
	}
	return causes
}

const socketsAboveMaxMsg = "Number of sockets in CPU topology is greater than the maximum sockets allowed"

func validateCPUHotplug(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if c := spec.Domain.CPU; c != nil && c.MaxSockets != 0 && c.Sockets > c.MaxSockets {
		return one(cause(f.Child("domain", "cpu", "sockets"), socketsAboveMaxMsg))
	}
	return nil
}

func validateRealtime(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	c := spec.Domain.CPU
	if c == nil || c.Realtime == nil {
		return nil
	}
	rt := f.Child("domain", "cpu", "realtime")
	var causes []metav1.StatusCause
	if !c.DedicatedCPUPlacement {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, dedicatedPath(f), "%s must be set to true when %s is used", dedicatedPath(f), rt))
	}
	if c.NUMA == nil || c.NUMA.GuestMappingPassthrough == nil {
		p := f.Child("domain", "cpu", "numa", "guestMappingPassthrough")
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, p, "%s must be defined when %s is used", p, rt))
	}
	return causes
}
