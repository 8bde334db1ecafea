package handler

import (
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// launcherRef is where the agent finds one pod's launcher on the node.
type launcherRef struct {
	// dir holds the launcher's config, status and logs.
	dir string
	// socket is the launcher's command socket.
	socket string
	pod    *corev1.Pod
	// kubelet is set when a kubelet runs the pod, not this agent.
	kubelet bool
}

// locate finds the launcher of pod: the agent's own directory for it on a
// simulated node, the pod's volumes under the kubelet's root on a real one.
func (c Config) locate(pod *corev1.Pod) launcherRef {
	if c.KubeletRoot == "" {
		dir := c.podDir(pod.Namespace, pod.Name)
		return launcherRef{dir: dir, socket: launcher.Socket(dir), pod: pod}
	}
	uid := string(pod.UID)
	return launcherRef{
		dir:     launcherpod.HostEmptyDir(c.KubeletRoot, uid, launcherpod.PrivateVolume),
		socket:  filepath.Join(launcherpod.HostEmptyDir(c.KubeletRoot, uid, launcherpod.SocketsVolume), launcherpod.SocketFile),
		pod:     pod,
		kubelet: true,
	}
}

// client talks to the launcher.
func (l launcherRef) client() *launcher.Client { return launcher.NewClientAt(l.socket) }

// running tells whether the launcher process (or the pod's compute
// container) is still there.
func (l launcherRef) running() bool {
	if !l.kubelet {
		_, ok := launcherPID(l.dir)
		return ok
	}
	for _, s := range l.pod.Status.ContainerStatuses {
		if s.Name == "compute" {
			return s.State.Terminated == nil
		}
	}
	return l.pod.Status.Phase == corev1.PodPending || l.pod.Status.Phase == corev1.PodRunning
}

// networkedPod is the launcher's pod when it has a network of its own (a
// kubelet runs it), nil on a simulated node.
func (l launcherRef) networkedPod() *corev1.Pod {
	if !l.kubelet {
		return nil
	}
	return l.pod
}
