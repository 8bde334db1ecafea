// Package v1beta1 holds the HostPathProvisioner API served under
// hostpathprovisioner.kubevirt.io/v1beta1.
//
// The Go types are our own, but group, kind and every JSON name follow the
// upstream hostpath-provisioner-operator CRD so existing manifests apply
// unchanged. The package depends only on k8s.io/api and k8s.io/apimachinery.
//
// +kubebuilder:object:generate=true
// +groupName=hostpathprovisioner.kubevirt.io
package v1beta1
