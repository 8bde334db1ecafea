// Package v1beta1 holds the HyperConverged API served under hco.kubevirt.io/v1beta1.
//
// The Go types are our own, but every group, kind, JSON name, enum and default
// matches the upstream HyperConverged CRD so that manifests written for
// OpenShift Virtualization apply to this project without edits. Types that
// upstream borrows from KubeVirt, CDI, OpenShift or the lifecycle SDK are
// re-declared here in minimal form, because this package may depend only on
// k8s.io/api and k8s.io/apimachinery.
//
// +kubebuilder:object:generate=true
// +groupName=hco.kubevirt.io
package v1beta1
