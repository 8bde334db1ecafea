package handler

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/launcher"
)

// The launcher learns where the kubelet put each claim, by claim name: a
// device for a block claim, a mount directory otherwise.
func TestPodClaimPathsFollowThePodsMountsAndDevices(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{Spec: kubevirtv1.VirtualMachineInstanceSpec{Volumes: []kubevirtv1.Volume{
		{Name: "root", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "root-dv"}}},
		{Name: "raw", VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{
			PersistentVolumeClaimVolumeSource: corev1.PersistentVolumeClaimVolumeSource{ClaimName: "raw-pvc"}}}},
		{Name: "disk", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "x"}}},
	}}}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "compute", VolumeDevices: []corev1.VolumeDevice{{Name: "raw", DevicePath: "/dev/raw"}},
	}}}}
	require.Equal(t, map[string]launcher.PVCPath{
		"root-dv": {Path: "/var/run/kubevirt-private/vmi-disks/root"},
		"raw-pvc": {Path: "/dev/raw", Block: true},
	}, podClaimPaths(vmi, pod))
}

// On a real node the launcher's files and socket are the pod's volumes
// under the kubelet's root.
func TestALaunchersVolumesAreFoundUnderTheKubeletRoot(t *testing.T) {
	pod := &corev1.Pod{}
	pod.UID = "1234"
	l := Config{KubeletRoot: "/var/lib/kubelet"}.locate(pod)
	require.Equal(t, "/var/lib/kubelet/pods/1234/volumes/kubernetes.io~empty-dir/virt-private", l.dir)
	require.Equal(t, "/var/lib/kubelet/pods/1234/volumes/kubernetes.io~empty-dir/virt-sockets/launcher.sock", l.socket)
	require.True(t, l.kubelet)
}
