package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group upstream uses; keeping it lets existing
// manifests and RBAC rules target our CRD unchanged.
const GroupName = "hco.kubevirt.io"

var (
	// GroupVersion identifies this package's types on the wire.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta1"}

	// SchemeGroupVersion aliases GroupVersion for client-gen style callers
	// that look the version up under this name.
	SchemeGroupVersion = GroupVersion

	// SchemeBuilder collects the functions that register this package's
	// kinds. It is built on apimachinery alone so the api tree does not pull
	// in controller-runtime.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme registers the HyperConverged kinds with a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource qualifies a plural resource name with this API group, as RBAC and
// error helpers expect.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

// addKnownTypes also adds the meta/v1 option kinds (ListOptions and friends)
// to the group version, which typed clients need for list and watch calls.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&HyperConverged{},
		&HyperConvergedList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
