package virtadmission

import (
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Limits of a pod's DNS configuration, as Kubernetes sets them.
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 6
	maxDNSSearchListChars = 256
)

func validateHostname(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.Hostname == "" {
		return nil
	}
	if errs := validation.IsDNS1123Label(spec.Hostname); len(errs) > 0 {
		p := f.Child("hostname")
		return one(cause(p, "%s does not conform to the kubernetes DNS_LABEL rules : %s", p, strings.Join(errs, ", ")))
	}
	return nil
}

func validateSubdomain(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.Subdomain == "" {
		return nil
	}
	if errs := validation.IsDNS1123Subdomain(spec.Subdomain); len(errs) > 0 {
		p := f.Child("subdomain")
		return one(cause(p, "%s does not conform to the kubernetes DNS_SUBDOMAIN rules : %s", p, strings.Join(errs, ", ")))
	}
	return nil
}

func validateStartStrategy(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	if spec.StartStrategy == nil {
		return nil
	}
	p := f.Child("startStrategy")
	if *spec.StartStrategy != kubevirtv1.StartStrategyPaused {
		return one(cause(p, "%s is set with an unrecognized option: %s", p, *spec.StartStrategy))
	}
	if spec.LivenessProbe != nil {
		return one(cause(p, "either %s or %s should be provided.Pausing VMI with LivenessProbe is not supported", p, f.Child("livenessProbe")))
	}
	return nil
}

// validateEvictionStrategy checks the VMI's own strategy; the cluster's
// is validated where it is set.
func validateEvictionStrategy(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	s := spec.EvictionStrategy
	if s == nil {
		return nil
	}
	switch *s {
	case kubevirtv1.EvictionStrategyLiveMigrate, kubevirtv1.EvictionStrategyLiveMigrateIfPossible,
		kubevirtv1.EvictionStrategyNone, kubevirtv1.EvictionStrategyExternal:
		return nil
	}
	p := f.Child("evictionStrategy")
	return one(cause(p, "%s is set with an unrecognized option: %s", p, *s))
}

func validateDNS(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if spec.DNSPolicy != "" {
		causes = append(causes, validateDNSPolicy(f.Child("dnsPolicy"), spec.DNSPolicy)...)
	}
	return append(causes, validateDNSConfig(f.Child("dnsConfig"), spec.DNSConfig, spec.DNSPolicy)...)
}

func validateDNSPolicy(p *field.Path, policy corev1.DNSPolicy) []metav1.StatusCause {
	switch policy {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	}
	valid := []string{string(corev1.DNSClusterFirstWithHostNet), string(corev1.DNSClusterFirst), string(corev1.DNSDefault), string(corev1.DNSNone), ""}
	return one(causeOf(metav1.CauseTypeFieldValueNotSupported, p, "DNSPolicy: %s is not supported, valid values: %s", policy, valid))
}

// dnsCause names a bare field, as Kubernetes' pod DNS checks do.
func dnsCause(name, format string, args ...any) metav1.StatusCause {
	return cause(field.NewPath(name), format, args...)
}

// validateDNSConfig follows Kubernetes' pod DNS config rules.
func validateDNSConfig(p *field.Path, cfg *corev1.PodDNSConfig, policy corev1.DNSPolicy) []metav1.StatusCause {
	if policy == corev1.DNSNone {
		if cfg == nil {
			return one(causeOf(metav1.CauseTypeFieldValueRequired, p, "must provide `dnsConfig` when `dnsPolicy` is %s", corev1.DNSNone))
		}
		if len(cfg.Nameservers) == 0 {
			return one(causeOf(metav1.CauseTypeFieldValueRequired, field.NewPath("nameservers"),
				"must provide at least one DNS nameserver when `dnsPolicy` is %s", corev1.DNSNone))
		}
	}
	if cfg == nil {
		return nil
	}
	var causes []metav1.StatusCause
	if len(cfg.Nameservers) > maxDNSNameservers {
		causes = append(causes, dnsCause("nameservers", "must not have more than %v nameservers: %s", maxDNSNameservers, cfg.Nameservers))
	}
	for _, ns := range cfg.Nameservers {
		if net.ParseIP(ns) == nil {
			causes = append(causes, dnsCause("nameservers", "must be valid IP address: %s", ns))
		}
	}
	return append(causes, validateDNSSearches(cfg)...)
}

func validateDNSSearches(cfg *corev1.PodDNSConfig) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if len(cfg.Searches) > maxDNSSearchPaths {
		causes = append(causes, dnsCause("searchDomains", "must not have more than %v search paths", maxDNSSearchPaths))
	}
	if len(strings.Join(cfg.Searches, " ")) > maxDNSSearchListChars {
		causes = append(causes, dnsCause("searchDomains", "must not have more than %v characters (including spaces) in the search list", maxDNSSearchListChars))
	}
	for _, s := range cfg.Searches {
		for _, msg := range validation.IsDNS1123Subdomain(s) {
			causes = append(causes, dnsCause("searchDomains", "%v", msg))
		}
	}
	for _, o := range cfg.Options {
		if o.Name == "" {
			causes = append(causes, dnsCause("options", "Option.Name must not be empty"))
		}
	}
	return causes
}
