// Package v1alpha1 holds the IPAMClaim API served under
// k8s.cni.cncf.io/v1alpha1: a persistent IP allocation a VM keeps across
// its launcher pods, which an IPAM plugin that honours claims reads.
//
// The Go types are our own, but group, kind and every JSON name follow the
// Network Plumbing Working Group's ipamclaims v0.5.0-alpha, so existing
// claims and the IPAM plugins reading them work unchanged.
//
// +kubebuilder:object:generate=true
// +groupName=k8s.cni.cncf.io
package v1alpha1
