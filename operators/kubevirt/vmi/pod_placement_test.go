package vmi

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// The serial console's log runs as a native sidecar: the kubelet stops
// it after the launcher, so the pod completes with the VM.
func TestTheConsoleLogIsANativeSidecarThatAVMICanTurnOff(t *testing.T) {
	p, err := launcherPod(newVMI(), nil)
	require.NoError(t, err)
	require.Len(t, p.Spec.Containers, 1, "only the launcher is a main container")
	require.Len(t, p.Spec.InitContainers, 1)
	side := p.Spec.InitContainers[0]
	require.Equal(t, "guest-console-log", side.Name)
	require.Equal(t, corev1.ContainerRestartPolicyAlways, *side.RestartPolicy)
	require.Equal(t, []string{"tail", "-n", "+1", "-F", "/var/run/kubevirt-private/serial.log"}, side.Command)
	require.Equal(t, "compute", p.Annotations["kubectl.kubernetes.io/default-container"])

	off := false
	vmi := newVMI()
	vmi.Spec.Domain.Devices.LogSerialConsole = &off
	p, err = launcherPod(vmi, nil)
	require.NoError(t, err)
	require.Empty(t, p.Spec.InitContainers)
}

// Dedicated CPUs need the Guaranteed QoS class, sidecar included, or the
// kubelet's CPU manager hands out no exclusive CPUs.
func TestDedicatedCPUsMakeTheWholePodGuaranteed(t *testing.T) {
	vmi := newVMI()
	vmi.Spec.Domain.CPU = &kubevirtv1.CPU{Cores: 2, DedicatedCPUPlacement: true, IsolateEmulatorThread: true}
	p, err := launcherPod(vmi, nil)
	require.NoError(t, err)
	for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
			require.False(t, req.IsZero(), "%s requests %s", c.Name, r)
			require.True(t, req.Equal(lim), "%s: %s requested as limited, for the Guaranteed class", c.Name, r)
		}
	}
	cpus := p.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]
	require.Equal(t, int64(3), cpus.Value(), "two vCPUs and the emulator thread")
	require.Equal(t, "true", p.Spec.NodeSelector[kubevirtv1.CPUManager])
}

// Huge pages back the guest's memory: the pod requests them, mounts
// hugetlbfs, and asks memory for the overhead only.
func TestHugepagesAreRequestedMountedAndNotCountedTwice(t *testing.T) {
	vmi := newVMI()
	plain, err := launcherPod(vmi, nil)
	require.NoError(t, err)
	guest := vmi.Spec.Domain.Memory.Guest.DeepCopy()
	vmi.Spec.Domain.Memory.Hugepages = &kubevirtv1.Hugepages{PageSize: "2Mi"}
	p, err := launcherPod(vmi, nil)
	require.NoError(t, err)
	r := p.Spec.Containers[0].Resources
	require.Equal(t, guest, r.Requests["hugepages-2Mi"])
	mem := plain.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
	mem.Sub(guest)
	require.Equal(t, mem.Value(), r.Requests.Memory().Value())
	require.Contains(t, p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "hugepages", MountPath: "/dev/hugepages"})
}
