package virtadmission

import (
	"net"
	"regexp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

var (
	interfaceNameChars = regexp.MustCompile(`^[A-Za-z0-9-_]+$`)
	interfaceModels    = map[string]bool{"e1000": true, "e1000e": true, "igb": true, "ne2k_pci": true, "pcnet": true, "rtl8139": true, kubevirtv1.VirtIO: true}
)

func validateNetworkNamesUnique(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	seen := map[string]bool{}
	var causes []metav1.StatusCause
	for i, n := range spec.Networks {
		if seen[n.Name] {
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueDuplicate, f.Child("networks").Index(i).Child("name"),
				"Network with name %q already exists, every network must have a unique name", n.Name))
		}
		seen[n.Name] = true
	}
	return causes
}

func validateNetworksHaveInterfaces(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	ifaces := map[string]bool{}
	for _, iface := range spec.Domain.Devices.Interfaces {
		ifaces[iface.Name] = true
	}
	var causes []metav1.StatusCause
	for i, n := range spec.Networks {
		if !ifaces[n.Name] {
			p := f.Child("networks").Index(i).Child("name")
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, p, notFoundFmt, p, n.Name))
		}
	}
	return causes
}

func validateInterfaceNamesUnique(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	seen := map[string]bool{}
	var causes []metav1.StatusCause
	for i, iface := range spec.Domain.Devices.Interfaces {
		if seen[iface.Name] {
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueDuplicate, f.Child("domain", "devices", "interfaces").Index(i).Child("name"),
				"Only one interface can be connected to one specific network"))
		}
		seen[iface.Name] = true
	}
	return causes
}

func validateInterfacesHaveNetworks(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	nets := networksByName(spec.Networks)
	var causes []metav1.StatusCause
	for i, iface := range spec.Domain.Devices.Interfaces {
		if _, ok := nets[iface.Name]; !ok {
			p := f.Child("domain", "devices", "interfaces").Index(i).Child("name")
			causes = append(causes, cause(p, notFoundFmt, p, iface.Name))
		}
	}
	return causes
}

func validateInterfaceFields(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	nets := networksByName(spec.Networks)
	var causes []metav1.StatusCause
	for i, iface := range spec.Domain.Devices.Interfaces {
		p := f.Child("domain", "devices", "interfaces").Index(i)
		causes = append(causes, validateInterfaceDevice(p, iface)...)
		if nets[iface.Name].Pod != nil && iface.Ports != nil {
			causes = append(causes, validatePorts(p, iface.Ports)...)
		}
		if iface.DHCPOptions != nil {
			causes = append(causes, validateDHCPOptions(f, p, iface.DHCPOptions)...)
		}
	}
	return causes
}

// validateInterfaceDevice checks interface p's name, model, MAC and PCI
// address.
func validateInterfaceDevice(p *field.Path, iface kubevirtv1.Interface) []metav1.StatusCause {
	var causes []metav1.StatusCause
	name := p.Child("name")
	if !interfaceNameChars.MatchString(iface.Name) {
		causes = append(causes, cause(name, "Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)"))
	}
	if iface.Model != "" && !interfaceModels[iface.Model] {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueNotSupported, p.Child("model"), "interface %s uses model %s that is not supported.", name, iface.Model))
	}
	if problem := macProblem(iface.MacAddress); problem != "" {
		causes = append(causes, cause(p.Child("macAddress"), "interface %s has %s.", name, problem))
	}
	if iface.PciAddress != "" && !pciAddress.MatchString(iface.PciAddress) {
		causes = append(causes, cause(p.Child("pciAddress"), "interface %s has malformed PCI address (%s).", name, iface.PciAddress))
	}
	return causes
}

// macProblem says what is wrong with a MAC address; an empty one is fine.
func macProblem(mac string) string {
	if mac == "" {
		return ""
	}
	hw, err := net.ParseMAC(mac)
	switch {
	case err != nil:
		return "malformed MAC address (" + mac + ")"
	case len(hw) > 6:
		return "too long MAC address (" + mac + ")"
	}
	return ""
}

// validatePorts checks the ports a pod-network interface forwards.
func validatePorts(p *field.Path, ports []kubevirtv1.Port) []metav1.StatusCause {
	var causes []metav1.StatusCause
	names := map[string]bool{}
	for i, port := range ports {
		if port.Name == "" {
			continue
		}
		np := p.Child("ports").Index(i).Child("name")
		if names[port.Name] {
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueDuplicate, np, "Duplicate name of the port: %s", port.Name))
		}
		if len(validation.IsValidPortName(port.Name)) != 0 {
			causes = append(causes, cause(np, "Invalid name of the port: %s", port.Name))
		}
		names[port.Name] = true
	}
	for i, port := range ports {
		pp := p.Child("ports").Index(i)
		if port.Port == 0 {
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, pp, "Port field is mandatory."))
		}
		if port.Port < 0 || port.Port > 65536 {
			causes = append(causes, cause(pp, "Port field must be in range 0 < x < 65536."))
		}
		if port.Protocol != "" && port.Protocol != "TCP" && port.Protocol != "UDP" {
			causes = append(causes, cause(pp.Child("protocol"), "Unknown protocol, only TCP or UDP allowed"))
		}
	}
	return causes
}

// validateDHCPOptions keeps upstream's field for private options, the
// spec's path itself.
func validateDHCPOptions(f, p *field.Path, o *kubevirtv1.DHCPOptions) []metav1.StatusCause {
	var causes []metav1.StatusCause
	unique := map[int]bool{}
	for _, opt := range o.PrivateOptions {
		unique[opt.Option] = true
	}
	if len(unique) < len(o.PrivateOptions) {
		causes = append(causes, cause(f, "Found Duplicates: you have provided duplicate DHCPPrivateOptions"))
	}
	for _, opt := range o.PrivateOptions {
		if opt.Option < 224 || opt.Option > 254 {
			causes = append(causes, cause(f, "provided DHCPPrivateOptions are out of range, must be in range 224 to 254"))
		}
	}
	for i, ip := range o.NTPServers {
		if net.ParseIP(ip).To4() == nil {
			causes = append(causes, cause(p.Child("dhcpOptions", "ntpServers").Index(i), "NTP servers must be a list of valid IPv4 addresses."))
		}
	}
	return causes
}
