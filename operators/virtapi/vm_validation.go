package virtapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// ValidateVMSpec checks a VirtualMachine spec.
func ValidateVMSpec(spec *kubevirtv1.VirtualMachineSpec) []metav1.StatusCause {
	f := field.NewPath("spec")
	var causes []metav1.StatusCause
	switch {
	case spec.Running != nil && spec.RunStrategy != nil:
		causes = append(causes, cause(f.Child("running"), "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead"))
	case spec.Running == nil && spec.RunStrategy == nil:
		causes = append(causes, cause(f.Child("runStrategy"), "One of Running or RunStrategy must be specified"))
	case spec.RunStrategy != nil && !validStrategy(*spec.RunStrategy):
		causes = append(causes, cause(f.Child("runStrategy"), "Invalid RunStrategy (%s)", *spec.RunStrategy))
	}
	if spec.Template == nil {
		return append(causes, cause(f.Child("template"), "missing virtual machine template."))
	}
	return append(causes, ValidateVMISpec(f.Child("template", "spec"), &spec.Template.Spec)...)
}

func validStrategy(s kubevirtv1.VirtualMachineRunStrategy) bool {
	switch s {
	case kubevirtv1.RunStrategyAlways, kubevirtv1.RunStrategyHalted, kubevirtv1.RunStrategyManual,
		kubevirtv1.RunStrategyRerunOnFailure, kubevirtv1.RunStrategyOnce, kubevirtv1.RunStrategyWaitAsReceiver:
		return true
	}
	return false
}
