package handler

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/kube/vmistatus"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/podnet"
)

// interfaceInfoSource says where an interface's status came from, with
// upstream's value for what the domain definition tells.
const interfaceInfoSource = "domain"

// reportAgent sets the AgentConnected condition and, once per connection,
// status.guestOSInfo from what the agent reports.
func (r *vmiReconciler) reportAgent(ctx context.Context, v *kubevirtv1.VirtualMachineInstance, l launcherRef, connected bool) {
	if !connected {
		removeCondition(v, kubevirtv1.VirtualMachineInstanceAgentConnected)
		return
	}
	vmistatus.SetCondition(v, kubevirtv1.VirtualMachineInstanceAgentConnected, corev1.ConditionTrue, "", "")
	if v.Status.GuestOSInfo.ID != "" || v.Status.GuestOSInfo.Name != "" {
		return
	}
	gi, err := l.client().GuestInfo(ctx)
	if err != nil {
		return
	}
	v.Status.GuestOSInfo = gi.AgentInfo().OS
}

// reportDevices fills status.interfaces, the LiveMigratable condition and
// the migration method of a running VMI, on every sync as upstream's
// virt-handler (an annotation or a claim can change). The interface on
// the pod network reports the pod's addresses, as upstream's: with
// masquerade they reach the guest through NAT, with bridge and passt the
// guest holds them.
func (r *vmiReconciler) reportDevices(ctx context.Context, v *kubevirtv1.VirtualMachineInstance, pod *corev1.Pod) {
	ifaces := make([]kubevirtv1.VirtualMachineInstanceNetworkInterface, 0, len(v.Spec.Domain.Devices.Interfaces))
	podNet := ""
	for _, n := range v.Spec.Networks {
		if n.Pod != nil {
			podNet = n.Name
		}
	}
	for _, iface := range v.Spec.Domain.Devices.Interfaces {
		st := kubevirtv1.VirtualMachineInstanceNetworkInterface{
			Name: iface.Name, MAC: domain.InterfaceMAC(v, iface), InfoSource: interfaceInfoSource,
		}
		if iface.Name == podNet && pod != nil && pod.Status.PodIP != "" {
			st.PodInterfaceName = podnet.PodInterface
			st.IP = pod.Status.PodIP
			for _, ip := range pod.Status.PodIPs {
				st.IPs = append(st.IPs, ip.IP)
			}
		}
		ifaces = append(ifaces, st)
	}
	v.Status.Interfaces = ifaces
	cond := vmistatus.LiveMigratable(v, func(claim string) ([]corev1.PersistentVolumeAccessMode, error) {
		pvc := &corev1.PersistentVolumeClaim{}
		if err := r.c.Get(ctx, types.NamespacedName{Namespace: v.Namespace, Name: claim}, pvc); err != nil {
			return nil, err
		}
		return pvc.Spec.AccessModes, nil
	})
	vmistatus.SetCondition(v, cond.Type, cond.Status, cond.Reason, cond.Message)
	v.Status.MigrationMethod = vmistatus.MigrationMethod(v)
}

// reportAccessCredentials says, in upstream's AccessCredentialsSynchronized
// condition, that credentials propagated through the guest agent or user
// passwords are not set in the guest: only cloud-init's NoCloud
// propagation is built.
func reportAccessCredentials(v *kubevirtv1.VirtualMachineInstance) {
	for _, c := range v.Spec.AccessCredentials {
		agentKey := c.SSHPublicKey != nil && c.SSHPublicKey.PropagationMethod.QemuGuestAgent != nil
		if agentKey || c.UserPassword != nil {
			vmistatus.SetCondition(v, kubevirtv1.VirtualMachineInstanceAccessCredentialsSynchronized, corev1.ConditionFalse,
				string(kubevirtv1.AccessCredentialsSyncFailed),
				"propagating access credentials through the guest agent is not supported yet by this virtflow release")
			return
		}
	}
}
