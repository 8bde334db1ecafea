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
	if len(vmi.Spec.Networks) == 0 {
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
	macOf := func(i kubevirtv1.Interface) string { return domain.InterfaceMAC(vmi, i) }
	return podnet.Configure(ctx, ns, vmi, macOf, podnet.Owner{UID: r.cfg.UID, GID: r.cfg.GID})
}

// failLaunch ends a launch virt-handler cannot prepare: the VMI fails with
// the reason, and its pod goes with it.
func (r *podReconciler) failLaunch(ctx context.Context, l launcherRef, vmi *kubevirtv1.VirtualMachineInstance, cause error) error {
	log.FromContext(ctx).Error(cause, "cannot start the VMI", "vmi", vmi.Name)
	return launcher.WriteFailedStart(l.dir, vmi, cause)
}
