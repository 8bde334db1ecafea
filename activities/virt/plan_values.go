package virt

import (
	"math"
	"time"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/virt"
)

// planOf turns the configuration into the copy's parameters. The
// completion budget counts the guest's memory in decimal gigabytes, as
// upstream's launcher does.
func planOf(vmi *kubevirtv1.VirtualMachineInstance, pod, policy string, cfg kubevirtv1.MigrationConfiguration) virt.MigrationPlan {
	perGB := int64(defaultCompletionTimeoutPerGiB)
	if cfg.CompletionTimeoutPerGiB != nil {
		perGB = *cfg.CompletionTimeoutPerGiB
	}
	progress := int64(defaultProgressTimeout)
	if cfg.ProgressTimeout != nil {
		progress = *cfg.ProgressTimeout
	}
	p := virt.MigrationPlan{
		Source:            virt.Side{Node: vmi.Status.NodeName, Pod: pod},
		PolicyName:        policy,
		CompletionTimeout: time.Duration(perGB*int64(math.Ceil(float64(guestMemory(vmi))/1e9))) * time.Second,
		ProgressTimeout:   time.Duration(progress) * time.Second,
		BlockMigration:    vmi.Status.MigrationMethod == kubevirtv1.BlockMigration,
		AutoConverge:      cfg.AllowAutoConverge != nil && *cfg.AllowAutoConverge,
		PostCopy:          cfg.AllowPostCopy != nil && *cfg.AllowPostCopy,
	}
	// Unset, it follows allowPostCopy, as upstream's default.
	p.WorkloadDisruption = p.PostCopy
	if cfg.AllowWorkloadDisruption != nil {
		p.WorkloadDisruption = *cfg.AllowWorkloadDisruption
	}
	if bw := cfg.BandwidthPerMigration; bw != nil && bw.Value() > 0 {
		p.BandwidthMiB = uint64(math.Ceil(float64(bw.Value()) / (1 << 20)))
	}
	return p
}

// guestMemory is the guest's memory, else what the VMI requests.
func guestMemory(vmi *kubevirtv1.VirtualMachineInstance) int64 {
	if m := vmi.Spec.Domain.Memory; m != nil && m.Guest != nil {
		return m.Guest.Value()
	}
	req := vmi.Spec.Domain.Resources.Requests.Memory()
	return req.Value()
}
