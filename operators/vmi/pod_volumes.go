package vmi

import (
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/wire/launcherpod"
)

// podVolumes are the launcher's own volumes and one per VMI volume the
// kubelet provides: claims (so the scheduler binds WaitForFirstConsumer
// claims to the pod's node and places the pod where its volumes are) and
// containerDisk images, which the kubelet pulls and mounts read-only.
func podVolumes(vmi *kubevirtv1.VirtualMachineInstance) []corev1.Volume {
	dirOrCreate := corev1.HostPathDirectoryOrCreate
	out := []corev1.Volume{
		{Name: launcherpod.PrivateVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: launcherpod.SocketsVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: launcherpod.CacheVolume, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: launcherpod.HostCacheDir, Type: &dirOrCreate,
		}}},
	}
	for _, v := range vmi.Spec.Volumes {
		switch {
		case claimName(v) != "":
			out = append(out, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName(v)},
			}})
		case v.ContainerDisk != nil:
			out = append(out, imageVolume(v.Name, v.ContainerDisk.Image, v.ContainerDisk.ImagePullPolicy))
		}
	}
	if c := kernelBootContainer(vmi); c != nil {
		out = append(out, imageVolume(launcherpod.KernelBootVolume, c.Image, c.ImagePullPolicy))
	}
	return out
}

func imageVolume(name, image string, policy corev1.PullPolicy) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		Image: &corev1.ImageVolumeSource{Reference: image, PullPolicy: policy},
	}}
}

func volumeMounts(vmi *kubevirtv1.VirtualMachineInstance, block map[string]bool) []corev1.VolumeMount {
	out := []corev1.VolumeMount{
		{Name: launcherpod.PrivateVolume, MountPath: launcherpod.PrivateDir},
		{Name: launcherpod.SocketsVolume, MountPath: launcherpod.SocketsDir},
		{Name: launcherpod.CacheVolume, MountPath: launcherpod.CacheDir},
	}
	for _, v := range vmi.Spec.Volumes {
		switch {
		case claimName(v) != "" && !block[claimName(v)]:
			out = append(out, corev1.VolumeMount{Name: v.Name, MountPath: launcherpod.ClaimDir(v.Name)})
		case v.ContainerDisk != nil:
			out = append(out, corev1.VolumeMount{Name: v.Name, MountPath: launcherpod.ContainerDiskDir(v.Name), ReadOnly: true})
		}
	}
	if kernelBootContainer(vmi) != nil {
		out = append(out, corev1.VolumeMount{Name: launcherpod.KernelBootVolume, MountPath: launcherpod.KernelBootDir, ReadOnly: true})
	}
	return out
}

func volumeDevices(vmi *kubevirtv1.VirtualMachineInstance, block map[string]bool) []corev1.VolumeDevice {
	var out []corev1.VolumeDevice
	for _, v := range vmi.Spec.Volumes {
		if c := claimName(v); c != "" && block[c] {
			out = append(out, corev1.VolumeDevice{Name: v.Name, DevicePath: launcherpod.ClaimDevice(v.Name)})
		}
	}
	return out
}

// claimName is the PVC behind a persistentVolumeClaim or dataVolume
// volume, "" for other volumes.
func claimName(v kubevirtv1.Volume) string {
	switch {
	case v.PersistentVolumeClaim != nil:
		return v.PersistentVolumeClaim.ClaimName
	case v.DataVolume != nil:
		return v.DataVolume.Name
	}
	return ""
}

func kernelBootContainer(vmi *kubevirtv1.VirtualMachineInstance) *kubevirtv1.KernelBootContainer {
	fw := vmi.Spec.Domain.Firmware
	if fw == nil || fw.KernelBoot == nil {
		return nil
	}
	return fw.KernelBoot.Container
}
