package domain

import (
	"fmt"
	"path/filepath"

	kubevirtv1 "kubevirt.io/api/core/v1"
	"libvirt.org/go/libvirtxml"
)

// Firmware is where a node keeps its EFI firmware: OVMF's code and the
// template of its variable store, without and with Secure Boot.
type Firmware struct {
	Code, Vars             string
	SecureCode, SecureVars string
}

// DebianOVMF is Debian's ovmf package, which the launcher image carries.
// Its Secure Boot variables have Microsoft's keys enrolled, as the
// secboot variables upstream's launcher uses do, so a distribution's
// shim boots.
var DebianOVMF = Firmware{
	Code:       "/usr/share/OVMF/OVMF_CODE_4M.fd",
	Vars:       "/usr/share/OVMF/OVMF_VARS_4M.fd",
	SecureCode: "/usr/share/OVMF/OVMF_CODE_4M.secboot.fd",
	SecureVars: "/usr/share/OVMF/OVMF_VARS_4M.ms.fd",
}

// defaultSMBIOS is what upstream's guests see in their SMBIOS system
// table unless the KubeVirt CR's configuration.smbios says otherwise;
// virtflow does not read that setting yet.
var defaultSMBIOS = kubevirtv1.SMBiosConfiguration{Manufacturer: "KubeVirt", Family: "KubeVirt", Product: "None"}

// efi reports whether the VMI boots through EFI firmware, and securely.
func efi(spec *kubevirtv1.DomainSpec) (bool, bool) {
	fw := spec.Firmware
	if fw == nil || fw.Bootloader == nil || fw.Bootloader.EFI == nil {
		return false, false
	}
	sb := fw.Bootloader.EFI.SecureBoot
	return true, sb == nil || *sb
}

// addFirmware sets the EFI loader and the VMI's own variable store, or
// SeaBIOS's serial output, as spec.domain.firmware.bootloader asks.
func addFirmware(dom *libvirtxml.Domain, in Input) error {
	spec := &in.VMI.Spec.Domain
	if bl := bootloader(spec); bl != nil && bl.BIOS != nil && bl.BIOS.UseSerial != nil && *bl.BIOS.UseSerial {
		dom.OS.BIOS = &libvirtxml.DomainBIOS{UseSerial: "yes"}
	}
	if in.VMI.Spec.StartStrategy != nil && *in.VMI.Spec.StartStrategy == kubevirtv1.StartStrategyPaused {
		// A guest started paused waits at the boot menu once resumed,
		// so a user can pick a device, as upstream.
		dom.OS.BootMenu = &libvirtxml.DomainBootMenu{Enable: "yes", Timeout: "10000"}
	}
	isEFI, secure := efi(spec)
	if !isEFI {
		return nil
	}
	code, vars := in.Firmware.Code, in.Firmware.Vars
	if secure {
		code, vars = in.Firmware.SecureCode, in.Firmware.SecureVars
	}
	if code == "" || vars == "" || in.NVRAMDir == "" {
		return fmt.Errorf("spec.domain.firmware.bootloader.efi of %s/%s: this node has no EFI firmware", in.VMI.Namespace, in.VMI.Name)
	}
	dom.OS.Loader = &libvirtxml.DomainLoader{Path: code, Readonly: "yes", Secure: map[bool]string{true: "yes", false: "no"}[secure], Type: "pflash"}
	dom.OS.NVRam = &libvirtxml.DomainNVRam{Template: vars, NVRam: filepath.Join(in.NVRAMDir, in.VMI.Name+"_VARS.fd")}
	return nil
}

func bootloader(spec *kubevirtv1.DomainSpec) *kubevirtv1.Bootloader {
	if spec.Firmware == nil {
		return nil
	}
	return spec.Firmware.Bootloader
}

// addSysInfo gives the guest upstream's SMBIOS: the system's UUID, serial
// and maker (KubeVirt's) and the chassis the spec names.
func addSysInfo(dom *libvirtxml.Domain, in Input) {
	spec := &in.VMI.Spec.Domain
	smbios := defaultSMBIOS
	system := []libvirtxml.DomainSysInfoEntry{{Name: "uuid", Value: dom.UUID}}
	if spec.Firmware != nil && spec.Firmware.Serial != "" {
		system = append(system, libvirtxml.DomainSysInfoEntry{Name: "serial", Value: spec.Firmware.Serial})
	}
	for _, e := range []libvirtxml.DomainSysInfoEntry{
		{Name: "manufacturer", Value: smbios.Manufacturer}, {Name: "family", Value: smbios.Family},
		{Name: "product", Value: smbios.Product}, {Name: "sku", Value: smbios.Sku}, {Name: "version", Value: smbios.Version},
	} {
		if e.Value != "" {
			system = append(system, e)
		}
	}
	info := &libvirtxml.DomainSysInfoSMBIOS{System: &libvirtxml.DomainSysInfoSystem{Entry: system}}
	if c := spec.Chassis; c != nil {
		info.Chassis = &libvirtxml.DomainSysInfoChassis{Entry: nonEmpty(
			libvirtxml.DomainSysInfoEntry{Name: "manufacturer", Value: c.Manufacturer}, libvirtxml.DomainSysInfoEntry{Name: "version", Value: c.Version},
			libvirtxml.DomainSysInfoEntry{Name: "serial", Value: c.Serial}, libvirtxml.DomainSysInfoEntry{Name: "asset", Value: c.Asset},
			libvirtxml.DomainSysInfoEntry{Name: "sku", Value: c.Sku})}
	}
	dom.SysInfo = []libvirtxml.DomainSysInfo{{SMBIOS: info}}
	dom.OS.SMBios = &libvirtxml.DomainSMBios{Mode: "sysinfo"}
}

// nonEmpty leaves out entries without a value, which libvirt refuses.
func nonEmpty(entries ...libvirtxml.DomainSysInfoEntry) []libvirtxml.DomainSysInfoEntry {
	var out []libvirtxml.DomainSysInfoEntry
	for _, e := range entries {
		if e.Value != "" {
			out = append(out, e)
		}
	}
	return out
}
