package v1beta1

// TLSSecurityProfile selects the TLS settings applied to operand endpoints.
// It has the JSON shape of the OpenShift config/v1 type so that a profile
// copied from the cluster APIServer object fits unchanged; the OpenShift
// module is not imported because the api tree depends on apimachinery only.
// +union
type TLSSecurityProfile struct {
	// Type picks a predefined profile or Custom. The operands only honour
	// Old, Intermediate and Custom, with at most VersionTLS12.
	// +unionDiscriminator
	// +optional
	Type TLSProfileType `json:"type"`
	// Old selects the Mozilla "old" profile, for ancient clients only.
	// +nullable
	// +optional
	Old *OldTLSProfile `json:"old,omitempty"`
	// Intermediate selects the Mozilla "intermediate" profile.
	// +nullable
	// +optional
	Intermediate *IntermediateTLSProfile `json:"intermediate,omitempty"`
	// Modern selects the TLS 1.3-only Mozilla "modern" profile.
	// +nullable
	// +optional
	Modern *ModernTLSProfile `json:"modern,omitempty"`
	// Custom spells the ciphers and minimum version out by hand.
	// +nullable
	// +optional
	Custom *CustomTLSProfile `json:"custom,omitempty"`
}

// OldTLSProfile has no settings; its presence selects the profile.
type OldTLSProfile struct{}

// IntermediateTLSProfile has no settings; its presence selects the profile.
type IntermediateTLSProfile struct{}

// ModernTLSProfile has no settings; its presence selects the profile.
type ModernTLSProfile struct{}

// CustomTLSProfile carries explicit TLS parameters.
type CustomTLSProfile struct {
	TLSProfileSpec `json:",inline"`
}

// TLSProfileType names a predefined profile or Custom.
// +kubebuilder:validation:Enum=Old;Intermediate;Modern;Custom
type TLSProfileType string

// Profile names accepted in TLSSecurityProfile.Type.
const (
	TLSProfileOldType          TLSProfileType = "Old"
	TLSProfileIntermediateType TLSProfileType = "Intermediate"
	TLSProfileModernType       TLSProfileType = "Modern"
	TLSProfileCustomType       TLSProfileType = "Custom"
)

// TLSProtocolVersion names a TLS protocol version the OpenShift way.
// +kubebuilder:validation:Enum=VersionTLS10;VersionTLS11;VersionTLS12;VersionTLS13
type TLSProtocolVersion string

// Protocol versions accepted in TLSProfileSpec.MinTLSVersion.
const (
	VersionTLS10 TLSProtocolVersion = "VersionTLS10"
	VersionTLS11 TLSProtocolVersion = "VersionTLS11"
	VersionTLS12 TLSProtocolVersion = "VersionTLS12"
	VersionTLS13 TLSProtocolVersion = "VersionTLS13"
)

// TLSProfileSpec lists ciphers (OpenSSL names) and the minimum version.
type TLSProfileSpec struct {
	// Ciphers negotiated for TLS 1.2 and below; TLS 1.3 suites are fixed.
	// +listType=atomic
	Ciphers []string `json:"ciphers"`
	// Groups optionally restricts key-exchange groups, most preferred first.
	// +listType=set
	// +optional
	Groups []string `json:"groups,omitempty"`
	// MinTLSVersion is the lowest protocol version accepted.
	MinTLSVersion TLSProtocolVersion `json:"minTLSVersion"`
}
