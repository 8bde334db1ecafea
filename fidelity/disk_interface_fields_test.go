package fidelity

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// diskAndInterfaceFields are the disks', interfaces' and networks'
// fields.
var diskAndInterfaceFields = map[string]field{
	"spec.domain.devices.disks[].name":                                by("TestTheTestGuestBootsInAPodFromAContainerDisk"),
	"spec.domain.devices.disks[].disk.bus":                            domV("sata", `bus="sata"`),
	"spec.domain.devices.disks[].disk.readonly":                       domV(true, `<readonly>`),
	"spec.domain.devices.disks[].disk.pciAddress":                     domV("0000:81:01.0", `<address type="pci" domain="0x0000" bus="0x81" slot="0x01" function="0x0">`),
	"spec.domain.devices.disks[].lun.bus":                             ref("scsi", notYet("a LUN disk")).with(claimDisk),
	"spec.domain.devices.disks[].lun.readonly":                        ref(true, notYet("a LUN disk")).with(claimDisk),
	"spec.domain.devices.disks[].lun.reservation":                     ref(true, "PersistentReservation feature gate is not enabled").with(claimDisk),
	"spec.domain.devices.disks[].cdrom.bus":                           domV("scsi", `<target dev="sda" bus="scsi"`).with(cdrom),
	"spec.domain.devices.disks[].cdrom.readonly":                      domV(false, `<readonly>`).removes().with(cdrom),
	"spec.domain.devices.disks[].cdrom.tray":                          domV("open", `tray="open"`).with(cdrom),
	"spec.domain.devices.disks[].bootOrder":                           domV(uint(1), `<boot order="1">`),
	"spec.domain.devices.disks[].serial":                              domV("SER-1", `<serial>SER-1</serial>`),
	"spec.domain.devices.disks[].dedicatedIOThread":                   domV(true, `iothread="2"`),
	"spec.domain.devices.disks[].cache":                               domV("writethrough", `cache="writethrough"`),
	"spec.domain.devices.disks[].io":                                  domV("native", `io="native"`),
	"spec.domain.devices.disks[].tag":                                 ref("disk-tag", notYet("device role tagging")),
	"spec.domain.devices.disks[].blockSize.custom.logical":            domV(uint(4096), `logical_block_size="4096"`).with(blockSizes),
	"spec.domain.devices.disks[].blockSize.custom.physical":           domV(uint(8192), `physical_block_size="8192"`).with(blockSizes),
	"spec.domain.devices.disks[].blockSize.custom.discardGranularity": {how: atNode, value: uint(8192), prep: blockSizes, want: "the launcher's libvirt 9.0 cannot set a discard granularity"},
	"spec.domain.devices.disks[].blockSize.matchVolume.enabled":       ref(true, notYet("matching the volume's block size")),
	"spec.domain.devices.disks[].shareable":                           domV(true, `<shareable>`),
	"spec.domain.devices.disks[].errorPolicy":                         domV("report", `error_policy="report"`),
	"spec.domain.devices.disks[].changedBlockTracking":                ref(true, notYet("changed block tracking")),

	"spec.domain.devices.interfaces[].name":                                domV("net2", `<alias name="ua-net2">`).with(renamedNetwork),
	"spec.domain.devices.interfaces[].model":                               domV("e1000e", `<model type="e1000e">`),
	"spec.domain.devices.interfaces[].binding.name":                        by("TestABindingThisNodeCannotConnectIsRefused"),
	"spec.domain.devices.interfaces[].bridge":                              by("TestABridgeBoundGuestHoldsThePodsAddress").with(noBindingMethod),
	"spec.domain.devices.interfaces[].masquerade":                          by("TestAMasqueradeGuestServesHTTPByItsIPAClusterIPAndANodePort").with(noBindingMethod),
	"spec.domain.devices.interfaces[].passtBinding":                        ref(nil, "PasstBinding feature gate is not enabled").with(noBindingMethod),
	"spec.domain.devices.interfaces[].sriov":                               ref(nil, notYet("SR-IOV")).with(noBindingMethod),
	"spec.domain.devices.interfaces[].slirp":                               ref(nil, "Slirp interface support has been discontinued since v1.3").with(noBindingMethod),
	"spec.domain.devices.interfaces[].macvtap":                             ref(nil, "Macvtap network binding has been discontinued since v1.3").with(noBindingMethod),
	"spec.domain.devices.interfaces[].passt":                               ref(nil, "Passt network binding has been discontinued since v1.3").with(noBindingMethod),
	"spec.domain.devices.interfaces[].ports[].name":                        by("TestWithPortsOnlyThoseReachTheGuest"),
	"spec.domain.devices.interfaces[].ports[].protocol":                    by("TestWithPortsOnlyThoseReachTheGuest"),
	"spec.domain.devices.interfaces[].ports[].port":                        by("TestWithPortsOnlyThoseReachTheGuest"),
	"spec.domain.devices.interfaces[].portRanges[].protocol":               by("TestPortRangesReachTheGuestAndOnlyThey"),
	"spec.domain.devices.interfaces[].portRanges[].start":                  by("TestPortRangesReachTheGuestAndOnlyThey"),
	"spec.domain.devices.interfaces[].portRanges[].end":                    by("TestPortRangesReachTheGuestAndOnlyThey"),
	"spec.domain.devices.interfaces[].macAddress":                          domV("02:00:00:00:00:01", `<mac address="02:00:00:00:00:01">`),
	"spec.domain.devices.interfaces[].bootOrder":                           domV(uint(2), `<boot order="2">`),
	"spec.domain.devices.interfaces[].pciAddress":                          domV("0000:82:02.0", `<address type="pci" domain="0x0000" bus="0x82" slot="0x02" function="0x0">`),
	"spec.domain.devices.interfaces[].dhcpOptions.bootFileName":            by("TestTheInterfacesDHCPOptionsAreOffered"),
	"spec.domain.devices.interfaces[].dhcpOptions.tftpServerName":          by("TestTheInterfacesDHCPOptionsAreOffered"),
	"spec.domain.devices.interfaces[].dhcpOptions.ntpServers[]":            by("TestTheInterfacesDHCPOptionsAreOffered"),
	"spec.domain.devices.interfaces[].dhcpOptions.privateOptions[].option": by("TestTheInterfacesDHCPOptionsAreOffered"),
	"spec.domain.devices.interfaces[].dhcpOptions.privateOptions[].value":  by("TestTheInterfacesDHCPOptionsAreOffered"),
	"spec.domain.devices.interfaces[].tag":                                 ref("nic-tag", notYet("device role tagging")),
	"spec.domain.devices.interfaces[].acpiIndex":                           domV(3, `<acpi index="3">`),
	"spec.domain.devices.interfaces[].state":                               domV("down", `<link state="down">`),

	"spec.networks[].name":                      by("TestAMasqueradeGuestServesHTTPByItsIPAClusterIPAndANodePort"),
	"spec.networks[].pod.vmNetworkCIDR":         by("TestTheVMNetworkCIDRPlacesTheGatewayAndTheGuest"),
	"spec.networks[].pod.vmIPv6NetworkCIDR":     ref("fd10:0:2::/120", notYet("IPv6 masquerade")),
	"spec.networks[].multus.networkName":        by("TestTheLauncherPodAsksMultusForTheNetworkAndItsDevice"),
	"spec.networks[].multus.default":            ref(true, notYet("a Multus default network")).with(multusOnly),
	"spec.networks[].resourceClaim.claimName":   ref("claim", "contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled").with(noNetworkSource),
	"spec.networks[].resourceClaim.requestName": ref("request", "contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled").with(noNetworkSource),
}

// claimDisk adds a claim's disk with no device type, which setting a lun
// field makes a LUN.
func claimDisk(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Volumes = append(v.Spec.Volumes, kubevirtv1.Volume{Name: "lun", VolumeSource: kubevirtv1.VolumeSource{
		PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{},
	}})
	v.Spec.Volumes[1].PersistentVolumeClaim.ClaimName = "shared"
	v.Spec.Domain.Devices.Disks = append(v.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "lun"})
}

// cdrom adds a CD-ROM from a container disk.
func cdrom(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Volumes = append(v.Spec.Volumes, kubevirtv1.Volume{Name: "iso", VolumeSource: kubevirtv1.VolumeSource{
		ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "registry.example/iso:1"},
	}})
	v.Spec.Domain.Devices.Disks = append(v.Spec.Domain.Devices.Disks, kubevirtv1.Disk{Name: "iso", DiskDevice: kubevirtv1.DiskDevice{CDRom: &kubevirtv1.CDRomTarget{}}})
}

func blockSizes(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Disks[0].BlockSize = &kubevirtv1.BlockSize{Custom: &kubevirtv1.CustomBlockSize{Logical: 512, Physical: 4096}}
}

func renamedNetwork(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Networks[0].Name = "net2"
}

func noBindingMethod(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Domain.Devices.Interfaces[0].InterfaceBindingMethod = kubevirtv1.InterfaceBindingMethod{}
}

func multusOnly(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Networks[0].NetworkSource = kubevirtv1.NetworkSource{Multus: &kubevirtv1.MultusNetwork{NetworkName: "ns1/blue"}}
	v.Spec.Domain.Devices.Interfaces[0].InterfaceBindingMethod = kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}
}

func noNetworkSource(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.Networks[0].NetworkSource = kubevirtv1.NetworkSource{}
	v.Spec.Domain.Devices.Interfaces[0].InterfaceBindingMethod = kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}
}
