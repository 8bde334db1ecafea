package virtadmission

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func podNet(name string) kubevirtv1.Network {
	return kubevirtv1.Network{Name: name, NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}
}

func multusNet(name, nad string) kubevirtv1.Network {
	return kubevirtv1.Network{Name: name, NetworkSource: kubevirtv1.NetworkSource{Multus: &kubevirtv1.MultusNetwork{NetworkName: nad}}}
}

func masqueradeIface(name string) kubevirtv1.Interface {
	return kubevirtv1.Interface{Name: name, InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}}
}

func bridgeIface(name string) kubevirtv1.Interface {
	return kubevirtv1.Interface{Name: name, InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}}
}

func withNetworks(ifaces []kubevirtv1.Interface, nets ...kubevirtv1.Network) func(*kubevirtv1.VirtualMachineInstanceSpec) {
	return func(s *kubevirtv1.VirtualMachineInstanceSpec) {
		s.Domain.Devices.Interfaces = ifaces
		s.Networks = nets
	}
}

func TestValidateVMISpecNetworks(t *testing.T) {
	runSpecCases(t, []specCase{
		{"pod network with masquerade", withNetworks([]kubevirtv1.Interface{masqueradeIface("default")}, podNet("default")), nil},
		{"interface without network", withNetworks([]kubevirtv1.Interface{masqueradeIface("nic0")}), []metav1.StatusCause{
			invalid("spec.domain.devices.interfaces[0].name", "Masquerade interface only implemented with pod network"),
			invalid("spec.domain.devices.interfaces[0].name", "spec.domain.devices.interfaces[0].name 'nic0' not found.")}},
		{"network without interface", withNetworks(nil, podNet("default")),
			[]metav1.StatusCause{required("spec.networks[0].name", "spec.networks[0].name 'default' not found.")}},
		{"two pod networks", withNetworks([]kubevirtv1.Interface{masqueradeIface("a"), masqueradeIface("b")}, podNet("a"), podNet("b")),
			[]metav1.StatusCause{duplicate("spec.interfaces", "more than one interface is connected to a pod network in spec.interfaces")}},
		{"duplicate names", withNetworks([]kubevirtv1.Interface{masqueradeIface("a"), bridgeIface("a")}, podNet("a"), multusNet("a", "x")), []metav1.StatusCause{
			invalid("spec.domain.devices.interfaces[0].name", "Masquerade interface only implemented with pod network"),
			duplicate("spec.networks[1].name", `Network with name "a" already exists, every network must have a unique name`),
			duplicate("spec.domain.devices.interfaces[1].name", "Only one interface can be connected to one specific network")}},
		{"network without a type", withNetworks([]kubevirtv1.Interface{bridgeIface("a")}, kubevirtv1.Network{Name: "a"}),
			[]metav1.StatusCause{required("spec.networks[0]", "should have a network type")}},
		{"Multus without a network name", withNetworks([]kubevirtv1.Interface{bridgeIface("a")}, multusNet("a", "")),
			[]metav1.StatusCause{required("spec.networks[0]", "CNI delegating plugin must have a networkName")}},
	}, ValidateVMISpec)
}

func TestValidateVMISpecInterfaces(t *testing.T) {
	zero, one := uint(0), uint(1)
	withMAC := masqueradeIface("a")
	withMAC.MacAddress = "02:00:00:00:00:00"
	ports := masqueradeIface("a")
	ports.Ports = []kubevirtv1.Port{{Name: "http", Port: 80}, {Name: "http", Protocol: "SCTP"}, {Name: "Bad_Name!", Port: 70000}}
	odd := bridgeIface("a b")
	odd.Model, odd.MacAddress = "fancy", "zz"
	booted := masqueradeIface("default")
	booted.BootOrder = &one
	zeroBoot := bridgeIface("n2")
	zeroBoot.BootOrder = &zero
	runSpecCases(t, []specCase{
		{"masquerade on Multus with the bridge's MAC", withNetworks([]kubevirtv1.Interface{withMAC}, multusNet("a", "x")), []metav1.StatusCause{
			invalid("spec.domain.devices.interfaces[0].name", "Masquerade interface only implemented with pod network"),
			invalid("spec.domain.devices.interfaces[0].macAddress", "The requested MAC address is reserved for the in-pod bridge. Please choose another one.")}},
		{"passt binding needs its gate", withNetworks([]kubevirtv1.Interface{{Name: "a", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{
			PasstBinding: &kubevirtv1.InterfacePasstBinding{}}}}, podNet("a")),
			[]metav1.StatusCause{invalid("spec.domain.devices.interfaces[0].name", "PasstBinding feature gate is not enabled")}},
		{"interface name, model and MAC", withNetworks([]kubevirtv1.Interface{odd}, podNet("a b")), []metav1.StatusCause{
			invalid("spec.domain.devices.interfaces[0].name", "Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)"),
			notSupportedCause("spec.domain.devices.interfaces[0].model", "interface spec.domain.devices.interfaces[0].name uses model fancy that is not supported."),
			invalid("spec.domain.devices.interfaces[0].macAddress", "interface spec.domain.devices.interfaces[0].name has malformed MAC address (zz).")}},
		{"forwarded ports", withNetworks([]kubevirtv1.Interface{ports}, podNet("a")), []metav1.StatusCause{
			duplicate("spec.domain.devices.interfaces[0].ports[1].name", "Duplicate name of the port: http"),
			invalid("spec.domain.devices.interfaces[0].ports[2].name", "Invalid name of the port: Bad_Name!"),
			required("spec.domain.devices.interfaces[0].ports[1]", "Port field is mandatory."),
			invalid("spec.domain.devices.interfaces[0].ports[1].protocol", "Unknown protocol, only TCP or UDP allowed"),
			invalid("spec.domain.devices.interfaces[0].ports[2]", "Port field must be in range 0 < x < 65536.")}},
		{"interface boot orders", func(s *kubevirtv1.VirtualMachineInstanceSpec) {
			s.Domain.Devices.Disks[0].BootOrder = &one
			withNetworks([]kubevirtv1.Interface{booted, zeroBoot}, podNet("default"), multusNet("n2", "x"))(s)
		}, []metav1.StatusCause{
			invalid("spec.domain.devices.interfaces[0].bootOrder", "Boot order for spec.domain.devices.interfaces[0].bootOrder already set for a different device."),
			invalid("spec[1].bootOrder", "spec[1] must have a boot order > 0, if supplied")}},
	}, ValidateVMISpec)
}

func TestDiscontinuedBindingsAreRefusedOnCreation(t *testing.T) {
	slirp := kubevirtv1.Interface{Name: "a", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{DeprecatedSlirp: &kubevirtv1.DeprecatedInterfaceSlirp{}}}
	runSpecCases(t, []specCase{
		{"slirp", withNetworks([]kubevirtv1.Interface{slirp}, podNet("a")),
			[]metav1.StatusCause{invalid("spec.domain.devices.interfaces[0].slirp", "Slirp interface support has been discontinued since v1.3")}},
	}, validateDiscontinuedBindings)
}
