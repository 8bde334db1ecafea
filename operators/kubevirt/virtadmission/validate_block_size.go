package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// validateBlockSize checks a custom block size: not together with
// matching the volume's, logical within physical, 512 logical on SATA
// (QEMU's emulated controller knows no other), discard granularity a
// multiple of the logical size, and both sizes powers of two in range.
func validateBlockSize(p *field.Path, i int, d kubevirtv1.Disk) []metav1.StatusCause {
	if d.BlockSize == nil || d.BlockSize.Custom == nil {
		return nil
	}
	bp := p.Index(i).Child("blockSize")
	if mv := d.BlockSize.MatchVolume; mv != nil && (mv.Enabled == nil || *mv.Enabled) {
		return one(cause(bp, "Block size matching can't be enabled together with a custom value"))
	}
	c := d.BlockSize.Custom
	cp := bp.Child("custom")
	bus, _ := diskTarget(d)
	switch {
	case c.Logical > c.Physical:
		return one(cause(cp.Child("logical"), "Logical size %d must be the same or less than the physical size of %d", c.Logical, c.Physical))
	case bus == kubevirtv1.DiskBusSATA && c.Logical != minBlockSize:
		return one(cause(cp.Child("logical"), "Logical size %d must be %d for SATA devices", c.Logical, minBlockSize))
	case c.DiscardGranularity != nil && c.Logical != 0 && *c.DiscardGranularity%c.Logical != 0:
		return one(cause(cp.Child("discardGranularity"), "Discard granularity %d must be multiples of logical size %d", *c.DiscardGranularity, c.Logical))
	}
	causes := validateCustomBlockSize(cp.Child("logical"), c.Logical)
	return append(causes, validateCustomBlockSize(cp.Child("physical"), c.Physical)...)
}

func validateCustomBlockSize(p *field.Path, size uint) []metav1.StatusCause {
	switch {
	case size < minBlockSize:
		return one(cause(p, "Provided size of %d is less than the supported minimum size of %d", size, minBlockSize))
	case size > maxBlockSize:
		return one(cause(p, "Provided size of %d is greater than the supported maximum size of %d", size, maxBlockSize))
	case size&(size-1) != 0:
		return one(cause(p, "Provided size of %d is not a power of 2", size))
	}
	return nil
}
