package virtctl

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The expose flags are matched case-insensitively and refused with
// upstream's messages.

func convertProtocol(s string) (corev1.Protocol, error) {
	for _, p := range []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP} {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown protocol: %s", s)
}

func convertServiceType(s string) (corev1.ServiceType, error) {
	for _, t := range []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer} {
		if strings.EqualFold(s, string(t)) {
			return t, nil
		}
	}
	if strings.EqualFold(s, string(corev1.ServiceTypeExternalName)) {
		// An ExternalName service selects nothing, so it cannot expose a VM.
		return "", fmt.Errorf("type: %s not supported", s)
	}
	return "", fmt.Errorf("unknown service type: %s", s)
}

func convertIPFamily(s string) ([]corev1.IPFamily, error) {
	v4, v6 := corev1.IPv4Protocol, corev1.IPv6Protocol
	switch strings.ToLower(s) {
	case "":
		return []corev1.IPFamily{}, nil
	case "ipv4":
		return []corev1.IPFamily{v4}, nil
	case "ipv6":
		return []corev1.IPFamily{v6}, nil
	case "ipv4,ipv6":
		return []corev1.IPFamily{v4, v6}, nil
	case "ipv6,ipv4":
		return []corev1.IPFamily{v6, v4}, nil
	}
	return nil, fmt.Errorf("unknown IPFamily/s: %s", s)
}

// convertIPFamilyPolicy defaults to PreferDualStack when two families
// were asked for, as upstream does.
func convertIPFamilyPolicy(s string, families []corev1.IPFamily) (corev1.IPFamilyPolicy, error) {
	if s == "" {
		if len(families) > 1 {
			return corev1.IPFamilyPolicyPreferDualStack, nil
		}
		return "", nil
	}
	for _, p := range []corev1.IPFamilyPolicy{corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack} {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown IPFamilyPolicy/s: %s", s)
}
