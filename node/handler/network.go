package handler

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/podnet"
)

// errSandboxNotReady says the launcher pod's network namespace is not
// there yet: the kubelet mounts volumes before it starts the sandbox.
var errSandboxNotReady = errors.New("the launcher pod's sandbox has no network yet")

// procRoot is the host's /proc: virt-handler shares the host's PID
// namespace, as upstream's does, to reach launcher pods' namespaces.
const procRoot = "/proc"

// connectNetwork prepares the pod's network namespace for the VMI's
// interfaces (the privileged half of a binding) and returns what the
// launcher does with it.
func (r *podReconciler) connectNetwork(ctx context.Context, vmi *kubevirtv1.VirtualMachineInstance, pod *corev1.Pod) (podnet.Plan, error) {
	if !onPodNetwork(vmi) {
		return podnet.Plan{}, nil
	}
	if pod.Status.PodIP == "" {
		return podnet.Plan{}, errSandboxNotReady
	}
	ns, err := podnet.PodNetns(procRoot, string(pod.UID))
	if errors.Is(err, podnet.ErrNoSandbox) {
		return podnet.Plan{}, errSandboxNotReady
	} else if err != nil {
		return podnet.Plan{}, err
	}
	return podnet.Configure(ctx, ns, vmi, podInterfaceMAC(vmi), podnet.Owner{UID: r.cfg.UID, GID: r.cfg.GID})
}

// onPodNetwork tells whether one of the VMI's interfaces is on the pod
// network.
func onPodNetwork(vmi *kubevirtv1.VirtualMachineInstance) bool {
	for _, n := range vmi.Spec.Networks {
		if n.Pod != nil {
			return true
		}
	}
	return false
}

// podInterfaceMAC is the guest MAC of the interface on the pod network.
func podInterfaceMAC(vmi *kubevirtv1.VirtualMachineInstance) string {
	for _, n := range vmi.Spec.Networks {
		if n.Pod == nil {
			continue
		}
		for _, iface := range vmi.Spec.Domain.Devices.Interfaces {
			if iface.Name == n.Name {
				return domain.InterfaceMAC(vmi, iface)
			}
		}
	}
	return ""
}

// failLaunch ends a launch virt-handler cannot prepare: the VMI fails with
// the reason, and its pod goes with it.
func (r *podReconciler) failLaunch(ctx context.Context, l launcherRef, vmi *kubevirtv1.VirtualMachineInstance, cause error) error {
	log.FromContext(ctx).Error(cause, "cannot start the VMI", "vmi", vmi.Name)
	return launcher.WriteFailedStart(l.dir, vmi, cause)
}
