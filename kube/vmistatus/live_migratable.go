package vmistatus

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/kube/vmivolumes"
)

// ClaimModes returns the access modes of a claim in the VMI's namespace.
type ClaimModes func(claim string) ([]corev1.PersistentVolumeAccessMode, error)

// notMigratable is one of upstream's checks: a reason and, when the VMI
// fails it, the message.
type notMigratable struct {
	reason string
	check  func(*kubevirtv1.VirtualMachineInstance) error
}

// specChecks are upstream's checks after the interfaces and before the
// volumes, in its order.
var specChecks = []notMigratable{
	{kubevirtv1.VirtualMachineInstanceReasonHostDeviceNotMigratable, func(v *kubevirtv1.VirtualMachineInstance) error {
		return failIf(len(v.Spec.Domain.Devices.HostDevices) > 0 || len(v.Spec.Domain.Devices.GPUs) > 0, "VMI uses a PCI host devices")
	}},
	{kubevirtv1.VirtualMachineInstanceReasonSEVNotMigratable, func(v *kubevirtv1.VirtualMachineInstance) error {
		ls := v.Spec.Domain.LaunchSecurity
		return failIf(ls != nil && ls.SEV != nil, "VMI uses SEV")
	}},
	{kubevirtv1.VirtualMachineInstanceReasonTDXNotMigratable, func(v *kubevirtv1.VirtualMachineInstance) error {
		ls := v.Spec.Domain.LaunchSecurity
		return failIf(ls != nil && ls.TDX != nil, "VMI uses TDX")
	}},
	{kubevirtv1.VirtualMachineInstanceReasonPRNotMigratable, func(v *kubevirtv1.VirtualMachineInstance) error {
		return failIf(slices.ContainsFunc(v.Spec.Domain.Devices.Disks, func(d kubevirtv1.Disk) bool { return d.LUN != nil && d.LUN.Reservation }),
			"VMI uses SCSI persistent reservation")
	}},
	{kubevirtv1.VirtualMachineInstanceReasonHypervPassthroughNotMigratable, func(v *kubevirtv1.VirtualMachineInstance) error {
		f := v.Spec.Domain.Features
		return failIf(f != nil && f.HypervPassthrough != nil && f.HypervPassthrough.Enabled != nil && *f.HypervPassthrough.Enabled,
			"VMI uses hyperv passthrough")
	}},
}

func failIf(cond bool, msg string) error {
	if cond {
		return errors.New(msg)
	}
	return nil
}

// LiveMigratable computes the LiveMigratable condition as upstream's
// virt-handler does, on every sync: the first failing check, in
// upstream's order (interfaces, devices, volumes), with its reason and
// message. Container disks, cloud-init and empty disks move by block
// migration (see MigrationMethod).
func LiveMigratable(v *kubevirtv1.VirtualMachineInstance, modes ClaimModes) kubevirtv1.VirtualMachineInstanceCondition {
	cond := kubevirtv1.VirtualMachineInstanceCondition{Type: kubevirtv1.VirtualMachineInstanceIsMigratable, Status: corev1.ConditionTrue}
	checks := append([]notMigratable{{kubevirtv1.VirtualMachineInstanceReasonInterfaceNotMigratable, interfacesMigratable}}, specChecks...)
	checks = append(checks, notMigratable{kubevirtv1.VirtualMachineInstanceReasonDisksNotMigratable,
		func(v *kubevirtv1.VirtualMachineInstance) error { return volumesMigratable(v, modes) }})
	for _, c := range checks {
		if err := c.check(v); err != nil {
			cond.Status, cond.Reason, cond.Message = corev1.ConditionFalse, c.reason, err.Error()
			return cond
		}
	}
	return cond
}

// MigrationMethod is how upstream would move the VMI: block migration
// when a disk lives with the node (a container disk's overlay, cloud-init,
// an empty disk, ...), live migration when every disk is shared.
func MigrationMethod(v *kubevirtv1.VirtualMachineInstance) kubevirtv1.VirtualMachineInstanceMigrationMethod {
	readOnlyCDROM := map[string]bool{}
	for _, d := range v.Spec.Domain.Devices.Disks {
		if d.CDRom != nil && (d.CDRom.ReadOnly == nil || *d.CDRom.ReadOnly) {
			readOnlyCDROM[d.Name] = true
		}
	}
	for _, vol := range v.Spec.Volumes {
		shared := vmivolumes.ClaimName(vol) != "" || vol.HostDisk != nil
		if !shared && !readOnlyCDROM[vol.Name] {
			return kubevirtv1.BlockMigration
		}
	}
	return kubevirtv1.LiveMigration
}

func volumesMigratable(v *kubevirtv1.VirtualMachineInstance, modes ClaimModes) error {
	for _, vol := range v.Spec.Volumes {
		if vol.HostDisk != nil && (vol.HostDisk.Shared == nil || !*vol.HostDisk.Shared) {
			return errors.New("cannot migrate VMI with non-shared HostDisk")
		}
		claim := vmivolumes.ClaimName(vol)
		if claim == "" {
			continue
		}
		m, err := modes(claim)
		if err != nil {
			return fmt.Errorf("cannot migrate VMI: Unable to determine if PVC %s is shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)", claim)
		}
		if !slices.Contains(m, corev1.ReadWriteMany) {
			return fmt.Errorf("cannot migrate VMI: PVC %s is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)", claim)
		}
	}
	return nil
}

func interfacesMigratable(v *kubevirtv1.VirtualMachineInstance) error {
	var pod *kubevirtv1.Network
	for i := range v.Spec.Networks {
		if v.Spec.Networks[i].Pod != nil {
			pod = &v.Spec.Networks[i]
		}
	}
	if pod == nil || len(v.Spec.Domain.Devices.Interfaces) == 0 {
		return nil
	}
	for _, iface := range v.Spec.Domain.Devices.Interfaces {
		if iface.Name != pod.Name {
			continue
		}
		_, allowed := v.Annotations[kubevirtv1.AllowPodBridgeNetworkLiveMigrationAnnotation]
		if iface.Masquerade != nil || iface.PasstBinding != nil || (iface.Bridge != nil && allowed) {
			return nil
		}
		return errors.New("cannot migrate VMI which does not use masquerade or a migratable plugin to connect to the pod network")
	}
	return fmt.Errorf("no primary interface found for network %s", pod.Name)
}
