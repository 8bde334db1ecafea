package vmi

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/kube/vmivolumes"
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
		case vmivolumes.ClaimName(v) != "":
			out = append(out, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: vmivolumes.ClaimName(v)},
			}})
		case v.ContainerDisk != nil:
			out = append(out, imageVolume(v.Name, v.ContainerDisk.Image, v.ContainerDisk.ImagePullPolicy))
		}
	}
	if c := kernelBootContainer(vmi); c != nil {
		out = append(out, imageVolume(launcherpod.KernelBootVolume, c.Image, c.ImagePullPolicy))
	}
	out = append(out, cloudInitSecretVolumes(vmi)...)
	for _, secret := range accessCredentialSecrets(vmi) {
		out = append(out, corev1.Volume{Name: launcherpod.AccessCredentialVolume(secret), VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: secret},
		}})
	}
	return out
}

// accessCredentialSecrets names the secrets of the VMI's SSH keys that
// cloud-init propagates, which the launcher reads from its volumes.
func accessCredentialSecrets(vmi *kubevirtv1.VirtualMachineInstance) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range vmi.Spec.AccessCredentials {
		k := c.SSHPublicKey
		if k == nil || k.Source.Secret == nil || k.PropagationMethod.NoCloud == nil || seen[k.Source.Secret.SecretName] {
			continue
		}
		seen[k.Source.Secret.SecretName] = true
		out = append(out, k.Source.Secret.SecretName)
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
		case vmivolumes.ClaimName(v) != "" && !block[vmivolumes.ClaimName(v)]:
			out = append(out, corev1.VolumeMount{Name: v.Name, MountPath: launcherpod.ClaimDir(v.Name)})
		case v.ContainerDisk != nil:
			out = append(out, corev1.VolumeMount{Name: v.Name, MountPath: launcherpod.ContainerDiskDir(v.Name), ReadOnly: true})
		}
	}
	if kernelBootContainer(vmi) != nil {
		out = append(out, corev1.VolumeMount{Name: launcherpod.KernelBootVolume, MountPath: launcherpod.KernelBootDir, ReadOnly: true})
	}
	for _, v := range cloudInitSecretVolumes(vmi) {
		out = append(out, corev1.VolumeMount{Name: v.Name, MountPath: path.Join(launcherpod.SecretsDir, v.Name), ReadOnly: true})
	}
	for _, secret := range accessCredentialSecrets(vmi) {
		out = append(out, corev1.VolumeMount{Name: launcherpod.AccessCredentialVolume(secret),
			MountPath: launcherpod.AccessCredentialDir(secret), ReadOnly: true})
	}
	return out
}

func volumeDevices(vmi *kubevirtv1.VirtualMachineInstance, block map[string]bool) []corev1.VolumeDevice {
	var out []corev1.VolumeDevice
	for _, v := range vmi.Spec.Volumes {
		if c := vmivolumes.ClaimName(v); c != "" && block[c] {
			out = append(out, corev1.VolumeDevice{Name: v.Name, DevicePath: launcherpod.ClaimDevice(v.Name)})
		}
	}
	return out
}

func kernelBootContainer(vmi *kubevirtv1.VirtualMachineInstance) *kubevirtv1.KernelBootContainer {
	fw := vmi.Spec.Domain.Firmware
	if fw == nil || fw.KernelBoot == nil {
		return nil
	}
	return fw.KernelBoot.Container
}

// cloudInitSecretVolumes are the secrets NoCloud volumes take their user
// and network data from.
func cloudInitSecretVolumes(vmi *kubevirtv1.VirtualMachineInstance) []corev1.Volume {
	var out []corev1.Volume
	add := func(name string, ref *corev1.LocalObjectReference) {
		if ref != nil && ref.Name != "" {
			out = append(out, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: ref.Name}}})
		}
	}
	for _, v := range vmi.Spec.Volumes {
		if ci := v.CloudInitNoCloud; ci != nil {
			add(launcherpod.CloudInitSecretVolume(v.Name, false), ci.UserDataSecretRef)
			add(launcherpod.CloudInitSecretVolume(v.Name, true), ci.NetworkDataSecretRef)
		}
	}
	return out
}
