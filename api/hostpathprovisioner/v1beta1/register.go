package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the upstream API group, kept so existing manifests and RBAC
// rules address our CRD unchanged.
const GroupName = "hostpathprovisioner.kubevirt.io"

var (
	// GroupVersion identifies this package's types on the wire.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta1"}

	// SchemeGroupVersion aliases GroupVersion for client-gen style callers.
	SchemeGroupVersion = GroupVersion

	// SchemeBuilder collects the registration functions; it relies on
	// apimachinery alone so the api tree stays free of controller-runtime.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme registers the HostPathProvisioner kinds with a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource qualifies a plural resource name with this API group.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

// addKnownTypes also registers the meta/v1 option kinds, which typed list and
// watch calls need.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&HostPathProvisioner{},
		&HostPathProvisionerList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
