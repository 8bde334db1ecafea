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

// LiveMigratable computes the LiveMigratable condition with upstream's
// reasons and messages: every claim must be shared (ReadWriteMany) and the
// pod network must use masquerade (or bridge with the opt-in annotation).
// Container disks, cloud-init and empty disks are copied with the guest.
func LiveMigratable(v *kubevirtv1.VirtualMachineInstance, modes ClaimModes) kubevirtv1.VirtualMachineInstanceCondition {
	cond := kubevirtv1.VirtualMachineInstanceCondition{Type: kubevirtv1.VirtualMachineInstanceIsMigratable, Status: corev1.ConditionTrue}
	notMigratable := func(reason string, err error) kubevirtv1.VirtualMachineInstanceCondition {
		cond.Status, cond.Reason, cond.Message = corev1.ConditionFalse, reason, err.Error()
		return cond
	}
	if err := volumesMigratable(v, modes); err != nil {
		return notMigratable(kubevirtv1.VirtualMachineInstanceReasonDisksNotMigratable, err)
	}
	if err := interfacesMigratable(v); err != nil {
		return notMigratable(kubevirtv1.VirtualMachineInstanceReasonInterfaceNotMigratable, err)
	}
	return cond
}

func volumesMigratable(v *kubevirtv1.VirtualMachineInstance, modes ClaimModes) error {
	for _, vol := range v.Spec.Volumes {
		if vol.HostDisk != nil {
			return fmt.Errorf("cannot migrate VMI: volume %s is a hostDisk, which is local to its node", vol.Name)
		}
		claim := vmivolumes.ClaimName(vol)
		if claim == "" {
			continue
		}
		m, err := modes(claim)
		if err != nil {
			return fmt.Errorf("cannot migrate VMI: PVC %s: %w", claim, err)
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
