package virtadmission

import (
	"regexp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

const (
	maxSerialLen = 256
	// Custom block sizes are powers of two in this range.
	minBlockSize = 512
	maxBlockSize = 2 << 20
)

var (
	serialChars = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)
	pciAddress  = regexp.MustCompile(`^([\da-fA-F]{4}):([\da-fA-F]{2}):([\da-fA-F]{2})\.([0-7]{1})$`)
	// supportedBuses is in upstream's order, which its message prints.
	supportedBuses = []kubevirtv1.DiskBus{kubevirtv1.DiskBusVirtio, kubevirtv1.DiskBusSCSI, kubevirtv1.DiskBusSATA, kubevirtv1.DiskBusUSB}
)

type diskCheck func(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause

// diskChecks run per disk in upstream's order. Some build their field by
// appending domain.devices.disks to the disks' path a second time, as
// upstream does; the causes keep that.
var diskChecks = []diskCheck{
	validateDiskTarget, validateDiskPCIAddress, validateDiskBootOrder, validateDiskBus, validateDiskSerial,
	validateDiskCache, validateDiskIO, validateDiskErrorPolicy, validateDiskNameLabel, validateBlockSize,
}

// validateDisks checks each disk at p (the disks' path).
func validateDisks(p *field.Path, disks []kubevirtv1.Disk) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for i, d := range disks {
		for j := 0; j < i; j++ {
			if disks[j].Name == d.Name {
				causes = append(causes, cause(p.Index(i).Child("name"), "%s and %s must not have the same Name.", p.Index(i), p.Index(j)))
			}
		}
		for _, check := range diskChecks {
			causes = append(causes, check(p, i, d)...)
		}
	}
	return causes
}

func validateDiskTarget(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	n := 0
	for _, set := range []bool{d.Disk != nil, d.LUN != nil, d.CDRom != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return one(cause(p.Index(i), "%s can only have a single target type defined", p.Index(i)))
	}
	return nil
}

func validateDiskPCIAddress(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	if d.Disk == nil || d.Disk.PciAddress == "" {
		return nil
	}
	at := p.Child("domain", "devices", "disks", "disk").Index(i)
	var causes []metav1.StatusCause
	if d.Disk.Bus != kubevirtv1.DiskBusVirtio {
		causes = append(causes, cause(at.Child("pciAddress"), "disk %s - setting a PCI address is only possible with bus type virtio.", at.Child("name")))
	}
	if !pciAddress.MatchString(d.Disk.PciAddress) {
		causes = append(causes, cause(at.Child("pciAddress"), "disk %s has malformed PCI address (%s).", at.Child("name"), d.Disk.PciAddress))
	}
	return causes
}

func validateDiskBootOrder(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	if d.BootOrder != nil && *d.BootOrder < 1 {
		return one(cause(p.Index(i).Child("bootOrder"), "%s must have a boot order > 0, if supplied", p.Index(i)))
	}
	return nil
}

// diskTarget is the disk's bus and the name of its target type.
func diskTarget(d kubevirtv1.Disk) (kubevirtv1.DiskBus, string) {
	switch {
	case d.Disk != nil:
		return d.Disk.Bus, "disk"
	case d.LUN != nil:
		return d.LUN.Bus, "lun"
	case d.CDRom != nil:
		return d.CDRom.Bus, "cdrom"
	}
	return "", ""
}

func validateDiskBus(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	bus, kind := diskTarget(d)
	if bus == "" {
		return nil
	}
	var causes []metav1.StatusCause
	switch bus {
	case "ide":
		causes = append(causes, cause(p.Index(i).Child(kind, "bus"), "IDE bus is not supported"))
	case kubevirtv1.DiskBusVirtio:
		if kind == "cdrom" {
			causes = append(causes, cause(p.Index(i).Child("cdrom", "bus"), "Bus type %s is invalid for CD-ROM device", bus))
		}
	case kubevirtv1.DiskBusSATA:
		if d.Disk != nil && d.Disk.ReadOnly {
			causes = append(causes, cause(p.Index(i).Child("disk", "bus"), "%s hard-disks do not support read-only.", bus))
		}
	case kubevirtv1.DiskBusSCSI, kubevirtv1.DiskBusUSB:
	default:
		causes = append(causes, cause(p.Index(i).Child(kind, "bus"), "%s is set with an unrecognized bus %s, must be one of: %v", p.Index(i), bus, supportedBuses))
	}
	if d.DedicatedIOThread != nil && *d.DedicatedIOThread && bus != kubevirtv1.DiskBusVirtio {
		causes = append(causes, causeOf(metav1.CauseTypeFieldValueNotSupported, p.Child("domain", "devices", "disks").Index(i),
			"IOThreads are not supported for disks on a %s bus", bus))
	}
	return causes
}

func validateDiskSerial(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	if d.Serial == "" {
		return nil
	}
	var causes []metav1.StatusCause
	if !serialChars.MatchString(d.Serial) {
		causes = append(causes, cause(p.Index(i).Child("serial"), "%s must be made up of the following characters [A-Za-z0-9_.+-], if specified", p.Index(i)))
	}
	if len([]rune(d.Serial)) > maxSerialLen {
		causes = append(causes, cause(p.Index(i).Child("serial"), "%s must be less than or equal to %d in length, if specified", p.Index(i), maxSerialLen))
	}
	return causes
}

func validateDiskCache(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	switch d.Cache {
	case "", kubevirtv1.CacheNone, kubevirtv1.CacheWriteThrough, kubevirtv1.CacheWriteBack:
		return nil
	}
	return one(cause(p.Index(i).Child("cache"), "%s has invalid value %s", p.Index(i).Child("cache"), d.Cache))
}

func validateDiskIO(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	switch d.IO {
	case "", kubevirtv1.IONative, kubevirtv1.IOThreads:
		return nil
	}
	return one(causeOf(metav1.CauseTypeFieldValueNotSupported, p.Child("domain", "devices", "disks").Index(i).Child("io"),
		"Disk IO mode for %s is not supported. Supported modes are: native, threads.", p))
}

func validateDiskErrorPolicy(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	if d.ErrorPolicy == nil {
		return nil
	}
	switch *d.ErrorPolicy {
	case kubevirtv1.DiskErrorPolicyStop, kubevirtv1.DiskErrorPolicyIgnore, kubevirtv1.DiskErrorPolicyReport, kubevirtv1.DiskErrorPolicyEnospace:
		return nil
	}
	return one(cause(p.Index(i).Child("errorPolicy"), "%s has invalid value \"%s\"", p.Index(i).Child("errorPolicy"), *d.ErrorPolicy))
}

// validateDiskNameLabel: a disk's name may become a container's name.
func validateDiskNameLabel(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	var causes []metav1.StatusCause
	for _, msg := range validation.IsDNS1123Label(d.Name) {
		causes = append(causes, cause(p.Child("domain", "devices", "disks").Index(i).Child("name"), "%s", msg))
	}
	return causes
}
