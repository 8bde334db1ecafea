package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IPAMClaim is the Schema for the IPAMClaim API
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=ipamclaims,singular=ipamclaim,scope=Namespaced
// +kubebuilder:subresource:status
type IPAMClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   IPAMClaimSpec   `json:"spec,omitempty"`
	Status IPAMClaimStatus `json:"status,omitempty"`
}

// IPAMClaimSpec names the network and interface the allocation is for.
// Both are always sent, even empty, as the CRD requires them.
type IPAMClaimSpec struct {
	// The network name for which this persistent allocation was created
	Network string `json:"network"`
	// The pod interface name for which this allocation was created
	Interface string `json:"interface"`
}

// IPAMClaimStatus contains the observed status of the IPAMClaim.
type IPAMClaimStatus struct {
	// The list of IP addresses (v4, v6) that were allocated for the pod interface
	IPs []string `json:"ips"`
	// The name of the pod holding the IPAMClaim
	OwnerPod OwnerPod `json:"ownerPod,omitempty"`
	// Conditions contains details for one aspect of the current state of this API Resource
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// OwnerPod names the pod whose interface holds the claim's addresses.
type OwnerPod struct {
	Name string `json:"name"`
}

// IPAMClaimList is a list of IPAMClaims.
//
// +kubebuilder:object:root=true
type IPAMClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []IPAMClaim `json:"items"`
}
