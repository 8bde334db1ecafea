package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// masqueradeBridgeMAC is the MAC of the bridge in the launcher pod that a
// masquerade interface sits behind; the guest cannot have it.
const masqueradeBridgeMAC = "02:00:00:00:00:00"

// validateNetworks is upstream's network admitter, in its order.
func validateNetworks(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	causes := validatePodNetworks(f, spec)
	causes = append(causes, validateNetworkSources(f, spec)...)
	causes = append(causes, validateMultusNames(f, spec)...)
	causes = append(causes, validateInterfaceStates(f, spec)...)
	causes = append(causes, validateBindings(f, spec)...)
	causes = append(causes, validateNetworkNamesUnique(f, spec)...)
	causes = append(causes, validateNetworksHaveInterfaces(f, spec)...)
	causes = append(causes, validateInterfaceNamesUnique(f, spec)...)
	causes = append(causes, validateInterfacesHaveNetworks(f, spec)...)
	return append(causes, validateInterfaceFields(f, spec)...)
}

// validateDiscontinuedBindings refuses the bindings removed in v1.3.
// Upstream checks them only when an object is created.
func validateDiscontinuedBindings(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, iface := range spec.Domain.Devices.Interfaces {
		p := f.Child("domain", "devices", "interfaces").Index(i)
		if iface.DeprecatedSlirp != nil {
			causes = append(causes, cause(p.Child("slirp"), "Slirp interface support has been discontinued since v1.3"))
		}
		if iface.DeprecatedPasst != nil {
			causes = append(causes, cause(p.Child("passt"), "Passt network binding has been discontinued since v1.3"))
		}
		if iface.DeprecatedMacvtap != nil {
			causes = append(causes, cause(p.Child("macvtap"), "Macvtap network binding has been discontinued since v1.3"))
		}
	}
	return causes
}

// validatePodNetworks keeps upstream's field for the duplicate pod network,
// spec.interfaces.
func validatePodNetworks(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	pods, multusDefaults := 0, 0
	for _, n := range spec.Networks {
		if n.Pod != nil {
			pods++
		}
		if n.Multus != nil && n.Multus.Default {
			multusDefaults++
		}
	}
	var causes []metav1.StatusCause
	if pods > 1 {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueDuplicate, f.Child("interfaces"),
			"more than one interface is connected to a pod network in %s", f.Child("interfaces")))
	}
	if multusDefaults > 1 {
		causes = append(causes, cause(f.Child("networks"), "Multus CNI should only have one default network"))
	}
	if pods > 0 && multusDefaults > 0 {
		causes = append(causes, cause(f.Child("networks"), "Pod network cannot be defined when Multus default network is defined"))
	}
	return causes
}

func validateNetworkSources(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, n := range spec.Networks {
		p := f.Child("networks").Index(i)
		switch {
		case n.Pod == nil && n.Multus == nil:
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, p, "should have a network type"))
		case n.Pod != nil && n.Multus != nil:
			causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, p, "should have only one network type"))
		}
	}
	return causes
}

// validateMultusNames reports only the first Multus network without a
// name, as upstream.
func validateMultusNames(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	for i, n := range spec.Networks {
		if n.Multus != nil && n.Multus.NetworkName == "" {
			return one(causeOf(metav1.CauseTypeFieldValueRequired, f.Child("networks").Index(i), "CNI delegating plugin must have a networkName"))
		}
	}
	return nil
}

// primaryNetworkName is the first network that is not a secondary Multus
// one, "" when there is none.
func primaryNetworkName(nets []kubevirtv1.Network) (string, bool) {
	for _, n := range nets {
		if n.Multus == nil || n.Multus.Default {
			return n.Name, true
		}
	}
	return "", false
}

func validateInterfaceStates(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	defName, hasDefault := primaryNetworkName(spec.Networks)
	for i, iface := range spec.Domain.Devices.Interfaces {
		p := f.Child("domain", "devices", "interfaces").Index(i).Child("state")
		s := iface.State
		switch s {
		case "", kubevirtv1.InterfaceStateAbsent, kubevirtv1.InterfaceStateLinkDown, kubevirtv1.InterfaceStateLinkUp:
		default:
			causes = append(causes, cause(p, "logical %s interface state value is unsupported: %s", iface.Name, s))
		}
		if iface.SRIOV != nil && (s == kubevirtv1.InterfaceStateLinkDown || s == kubevirtv1.InterfaceStateLinkUp) {
			causes = append(causes, cause(p, "%q interface's state %q is not supported for SR-IOV NICs", iface.Name, s))
		}
		if s == kubevirtv1.InterfaceStateAbsent && iface.Bridge == nil {
			causes = append(causes, cause(p, "%q interface's state %q is supported only for bridge binding", iface.Name, s))
		}
		if s == kubevirtv1.InterfaceStateAbsent && hasDefault && defName == iface.Name {
			causes = append(causes, cause(p, "%q interface's state %q is not supported on default networks", iface.Name, s))
		}
	}
	return causes
}

// networksByName indexes networks; a later duplicate wins, as upstream.
func networksByName(nets []kubevirtv1.Network) map[string]kubevirtv1.Network {
	m := map[string]kubevirtv1.Network{}
	for _, n := range nets {
		m[n.Name] = n
	}
	return m
}

// validateBindings checks each interface's binding against its network
// (the zero network when it names none). Bridge binding on the pod network
// is allowed, upstream's default.
func validateBindings(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	nets := networksByName(spec.Networks)
	var causes []metav1.StatusCause
	for i, iface := range spec.Domain.Devices.Interfaces {
		p := f.Child("domain", "devices", "interfaces").Index(i)
		m := iface.InterfaceBindingMethod
		hasMethod := m.Bridge != nil || m.Masquerade != nil || m.SRIOV != nil || m.PasstBinding != nil
		if iface.Binding != nil && hasMethod {
			causes = append(causes, cause(p.Child("binding"), "logical %s interface cannot have both binding plugin and interface binding method", iface.Name))
		}
		onPod := nets[iface.Name].Pod != nil
		if m.Masquerade != nil && !onPod {
			causes = append(causes, cause(p.Child("name"), "Masquerade interface only implemented with pod network"))
		}
		if m.Masquerade != nil && iface.MacAddress == masqueradeBridgeMAC {
			causes = append(causes, cause(p.Child("macAddress"), "The requested MAC address is reserved for the in-pod bridge. Please choose another one."))
		}
		if m.PasstBinding != nil && !gateEnabled(gatePasstBinding) {
			causes = append(causes, cause(p.Child("name"), "PasstBinding feature gate is not enabled"))
		}
		if m.PasstBinding != nil && !onPod {
			causes = append(causes, cause(p.Child("name"), "PasstBinding interface only implemented with pod network"))
		}
	}
	return causes
}
