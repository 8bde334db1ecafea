package virtadmission

import (
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// validateFirmwareACPI keeps upstream's path, spec.acpi, which lacks
// domain.firmware.
func validateFirmwareACPI(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	fw := spec.Domain.Firmware
	if fw == nil || fw.ACPI == nil {
		return nil
	}
	p := f.Child("acpi")
	if fw.ACPI.SlicNameRef == "" && fw.ACPI.MsdmNameRef == "" {
		return one(cause(p, "ACPI was set but no SLIC nor MSDM volume reference was set"))
	}
	causes := validateACPIRef(p, fw.ACPI.SlicNameRef, spec.Volumes, "slicNameRef")
	return append(causes, validateACPIRef(p, fw.ACPI.MsdmNameRef, spec.Volumes, "msdmNameRef")...)
}

// validateACPIRef wants the table from a Secret volume.
func validateACPIRef(p *field.Path, ref string, vols []kubevirtv1.Volume, name string) []metav1.StatusCause {
	if ref == "" {
		return nil
	}
	v := volumeNamed(vols, ref)
	switch {
	case v == nil:
		return one(cause(p.Child(name), "%s does not have a matching Volume.", p))
	case v.Secret == nil:
		return one(cause(p.Child(name), "%s refers to Volume of unsupported type.", p))
	}
	return nil
}

// validateDomain covers the disks, the firmware and Secure Boot's need
// for SMM.
func validateDomain(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	p := f.Child("domain")
	d := &spec.Domain
	causes := validateDisks(p.Child("devices", "disks"), d.Devices.Disks)
	if fw := d.Firmware; fw != nil {
		if bl := fw.Bootloader; bl != nil && bl.EFI != nil && bl.BIOS != nil {
			bp := p.Child("firmware", "bootloader")
			causes = append(causes, cause(bp, "%s has both EFI and BIOS configured, but they are mutually exclusive.", bp))
		}
		causes = append(causes, validateKernelBoot(p.Child("firmware", "kernelBoot"), fw.KernelBoot)...)
	}
	if secureBoot(d.Firmware) && !smmEnabled(d.Features) {
		causes = append(causes, cause(p, "%s has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.", p))
	}
	return causes
}

// secureBoot: EFI boots securely unless told not to.
func secureBoot(fw *kubevirtv1.Firmware) bool {
	if fw == nil || fw.Bootloader == nil || fw.Bootloader.EFI == nil {
		return false
	}
	sb := fw.Bootloader.EFI.SecureBoot
	return sb == nil || *sb
}

func smmEnabled(features *kubevirtv1.Features) bool {
	return features != nil && features.SMM != nil && (features.SMM.Enabled == nil || *features.SMM.Enabled)
}

// validateKernelBoot refuses kernel arguments without a kernel, and a
// kernel container without an image or anything to boot.
func validateKernelBoot(p *field.Path, kb *kubevirtv1.KernelBoot) []metav1.StatusCause {
	if kb == nil {
		return nil
	}
	if kb.Container == nil {
		if kb.KernelArgs != "" {
			return one(cause(p.Child("kernelArgs"), "kernel arguments cannot be provided without an external kernel"))
		}
		return nil
	}
	c, cp := kb.Container, p.Child("container")
	var causes []metav1.StatusCause
	if c.Image == "" {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, cp.Child("image"), "%s must be defined with an image", cp))
	}
	if c.InitrdPath == "" && c.KernelPath == "" {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueRequired, cp,
			"%s must be defined with at least one of the following: kernelPath, initrdPath", cp))
	}
	if c.KernelPath != "" {
		causes = append(causes, validatePath(cp.Child("kernelPath"), c.KernelPath)...)
	}
	if c.InitrdPath != "" {
		causes = append(causes, validatePath(cp.Child("initrdPath"), c.InitrdPath)...)
	}
	return causes
}

// validatePath wants an absolute path to a file, without "." or "..".
func validatePath(p *field.Path, path string) []metav1.StatusCause {
	if path == "/" {
		return one(cause(p, "%s must not point to root", p))
	}
	if filepath.Join("/", path) != strings.TrimSuffix(path, "/") {
		return one(cause(p, "%s must be an absolute path to a file without relative components", p))
	}
	return nil
}

func validateContainerDiskPaths(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, v := range spec.Volumes {
		if v.ContainerDisk != nil && v.ContainerDisk.Path != "" {
			causes = append(causes, validatePath(f.Child("volumes").Index(i).Child("containerDisk"), v.ContainerDisk.Path)...)
		}
	}
	return causes
}
