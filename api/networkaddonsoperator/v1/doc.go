// Package v1 holds the NetworkAddonsConfig API served under
// networkaddonsoperator.network.kubevirt.io/v1.
//
// The Go types are our own, but group, kind and every JSON name follow the
// upstream cluster-network-addons-operator CRD so existing manifests apply
// unchanged. Types upstream takes from OpenShift modules are re-declared here
// in minimal form, because this package may depend only on k8s.io/api and
// k8s.io/apimachinery.
//
// +kubebuilder:object:generate=true
// +groupName=networkaddonsoperator.network.kubevirt.io
package v1
