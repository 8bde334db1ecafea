package virtadmission

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

var oneMegabyte = resource.MustParse("1M")

func memoryRequestPath(f *field.Path) *field.Path {
	return f.Child("domain", "resources", "requests", "memory")
}

func memoryLimitPath(f *field.Path) *field.Path {
	return f.Child("domain", "resources", "limits", "memory")
}

func validateMemoryRequests(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	req := spec.Domain.Resources.Requests.Memory()
	p := memoryRequestPath(f)
	switch {
	case req.Value() < 0:
		return one(cause(p, mustBePositiveFmt, p, req))
	case req.Value() > 0 && req.Cmp(oneMegabyte) < 0:
		return one(cause(p, "%s '%s': must be greater than or equal to 1M.", p, req))
	}
	return nil
}

func validateMemoryLimits(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	req, lim := spec.Domain.Resources.Requests.Memory(), spec.Domain.Resources.Limits.Memory()
	var causes []metav1.StatusCause
	if lim.Value() < 0 {
		causes = append(causes, cause(memoryLimitPath(f), mustBePositiveFmt, memoryLimitPath(f), lim))
	}
	if lim.Value() > 0 && req.Value() > lim.Value() {
		causes = append(causes, cause(memoryRequestPath(f), "%s '%s' is greater than %s '%s'", memoryRequestPath(f), req, memoryLimitPath(f), lim))
	}
	return causes
}

// validateHugepages checks that the VM's memory is a whole number of pages.
// The memory is the request, else the guest size, else the limit.
func validateHugepages(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	m := spec.Domain.Memory
	if m == nil || m.Hugepages == nil {
		return nil
	}
	sizePath := f.Child("domain", "memory", "hugepages", "pageSize")
	size, err := resource.ParseQuantity(m.Hugepages.PageSize)
	if err != nil {
		return one(cause(sizePath, "%s '%s': %s", sizePath, m.Hugepages.PageSize, resource.ErrFormatWrong))
	}
	res := spec.Domain.Resources
	vmMemory := res.Requests.Memory().Value()
	if vmMemory == 0 && m.Guest != nil {
		vmMemory = m.Guest.Value()
	}
	if vmMemory == 0 {
		vmMemory = res.Limits.Memory().Value()
	}
	reqPath := memoryRequestPath(f)
	switch {
	case vmMemory != 0 && vmMemory < size.Value():
		return one(cause(reqPath, "%s '%s' must be equal to or larger than page size %s '%s'", reqPath, res.Requests.Memory(), sizePath, m.Hugepages.PageSize))
	case size.Value() != 0 && vmMemory%size.Value() != 0:
		return one(cause(reqPath, "%s '%s' is not a multiple of the page size %s '%s'", reqPath, res.Requests.Memory(), sizePath, m.Hugepages.PageSize))
	}
	return nil
}

func validateMemoryIsProvided(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	res, m := spec.Domain.Resources, spec.Domain.Memory
	if !res.Limits.Memory().IsZero() || !res.Requests.Memory().IsZero() {
		return nil
	}
	if m != nil && (m.Hugepages != nil || (m.Guest != nil && !m.Guest.IsZero())) {
		return nil
	}
	return one(cause(memoryLimitPath(f), "%s, %s, %s or %s should be provided", memoryRequestPath(f), memoryLimitPath(f),
		f.Child("domain", "memory", "hugepages"), f.Child("domain", "memory", "guest")))
}

// validateMemoryRequestEqualsLimit applies to dedicated CPUs only.
func validateMemoryRequestEqualsLimit(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	req, lim := spec.Domain.Resources.Requests.Memory().Value(), spec.Domain.Resources.Limits.Memory().Value()
	if req > 0 && lim > 0 && req != lim {
		return one(cause(memoryRequestPath(f), "%s must be equal to %s", memoryRequestPath(f), memoryLimitPath(f)))
	}
	return nil
}
