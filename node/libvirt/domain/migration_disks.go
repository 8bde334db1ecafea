package domain

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// BlockMigrated are the targets (vda, ...) of the VMI's disks a block
// migration copies: those the guest writes in the launcher pod, a
// container disk's or an ephemeral volume's overlay and an empty disk.
// The read-only images the launcher generates (cloud-init, config maps,
// secrets, ...) are generated again on the target, and claims and host
// disks are shared (the VMI is not migratable otherwise).
func BlockMigrated(vmi *kubevirtv1.VirtualMachineInstance) ([]string, error) {
	local := map[string]bool{}
	for _, v := range vmi.Spec.Volumes {
		local[v.Name] = v.ContainerDisk != nil || v.EmptyDisk != nil || v.Ephemeral != nil
	}
	var targets []string
	next := map[string]int{}
	for _, d := range vmi.Spec.Domain.Devices.Disks {
		_, bus, readOnly, err := deviceAndBus(d)
		if err != nil {
			return nil, err
		}
		dev := nextTarget(bus, next)
		if local[d.Name] && !readOnly {
			targets = append(targets, dev)
		}
	}
	return targets, nil
}
