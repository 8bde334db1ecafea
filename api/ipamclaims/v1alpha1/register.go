package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the Network Plumbing Working Group's API group, shared with
// NetworkAttachmentDefinitions.
const GroupName = "k8s.cni.cncf.io"

var (
	// SchemeGroupVersion identifies this package's types on the wire.
	SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

	// SchemeBuilder collects the registration functions.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme registers the IPAMClaim kinds with a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource qualifies a plural resource name with this API group.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &IPAMClaim{}, &IPAMClaimList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
