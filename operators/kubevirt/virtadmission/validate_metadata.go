package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// restrictedLabels are set on VMIs by KubeVirt alone.
var restrictedLabels = []string{
	kubevirtv1.CreatedByLabel, kubevirtv1.MigrationJobLabel, kubevirtv1.NodeNameLabel,
	kubevirtv1.MigrationTargetNodeNameLabel, kubevirtv1.NodeSchedulable, kubevirtv1.InstallStrategyLabel,
}

const sidecarAnnotation = "hooks.kubevirt.io/hookSidecars"

// ValidateVMIMetadata refuses labels only KubeVirt sets, and the ignition
// and sidecar annotations whose gates are off.
func ValidateVMIMetadata(f *field.Path, meta *metav1.ObjectMeta) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for _, l := range restrictedLabels {
		if _, ok := meta.Labels[l]; ok {
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueNotSupported, f.Child("labels"),
				"creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited"))
			break
		}
	}
	if meta.Annotations[kubevirtv1.IgnitionAnnotation] != "" && !gateEnabled(gateIgnition) {
		causes = append(causes, cause(f.Child("annotations"), "%s feature gate is not enabled in kubevirt-config, invalid entry %s",
			gateIgnition, f.Child("annotations").Child(kubevirtv1.IgnitionAnnotation)))
	}
	if meta.Annotations[sidecarAnnotation] != "" && !gateEnabled(gateSidecar) {
		causes = append(causes, cause(f.Child("annotations"), "sidecar feature gate is not enabled in kubevirt-config, invalid entry %s",
			f.Child("annotations", sidecarAnnotation)))
	}
	return causes
}
