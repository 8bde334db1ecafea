package vmi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/wire/launcherpod"
)

// The launcher pod runs as a non-root user, unprivileged and without
// capabilities, with a reaping PID 1.
func TestTheLauncherPodIsUnprivileged(t *testing.T) {
	p, err := launcherPod(newVMI(), nil)
	require.NoError(t, err)
	require.True(t, *p.Spec.ShareProcessNamespace)
	require.Equal(t, int64(launcherpod.User), *p.Spec.SecurityContext.RunAsUser)
	require.True(t, *p.Spec.SecurityContext.RunAsNonRoot)
	c := p.Spec.Containers[0]
	require.Equal(t, launcherpod.Image, c.Image)
	require.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
	require.False(t, *c.SecurityContext.Privileged)
	require.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	require.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
	require.Empty(t, c.SecurityContext.Capabilities.Add)
}

// Every VMI volume the kubelet provides has its pod volume and mount: a
// containerDisk and the kernel-boot image as image volumes, a filesystem
// claim mounted under the disks directory, a block claim as a device.
func TestTheLauncherPodCarriesTheVMIVolumes(t *testing.T) {
	vmi := newVMI()
	vmi.Spec.Domain.Firmware = &kubevirtv1.Firmware{KernelBoot: &kubevirtv1.KernelBoot{
		Container: &kubevirtv1.KernelBootContainer{Image: "guest:1", KernelPath: "/boot/vmlinuz"},
	}}
	vmi.Spec.Volumes = []kubevirtv1.Volume{
		{Name: "root", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "disk:1"}}},
		{Name: "data", VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{
			PersistentVolumeClaimVolumeSource: corev1.PersistentVolumeClaimVolumeSource{ClaimName: "fs-claim"}}}},
		{Name: "raw", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "block-dv"}}},
		{Name: "ci", VolumeSource: kubevirtv1.VolumeSource{CloudInitNoCloud: &kubevirtv1.CloudInitNoCloudSource{UserData: "x"}}},
	}
	p, err := launcherPod(vmi, map[string]bool{"block-dv": true})
	require.NoError(t, err)
	vols := map[string]corev1.Volume{}
	for _, v := range p.Spec.Volumes {
		vols[v.Name] = v
	}
	require.Equal(t, "disk:1", vols["root"].Image.Reference)
	require.Equal(t, "guest:1", vols[launcherpod.KernelBootVolume].Image.Reference)
	require.Equal(t, "fs-claim", vols["data"].PersistentVolumeClaim.ClaimName)
	require.Equal(t, "block-dv", vols["raw"].PersistentVolumeClaim.ClaimName)
	require.NotContains(t, vols, "ci", "cloud-init is made by the launcher itself")
	require.NotNil(t, vols[launcherpod.PrivateVolume].EmptyDir)
	require.Equal(t, launcherpod.HostCacheDir, vols[launcherpod.CacheVolume].HostPath.Path)

	c := p.Spec.Containers[0]
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	require.Equal(t, launcherpod.ContainerDiskDir("root"), mounts["root"])
	require.Equal(t, launcherpod.ClaimDir("data"), mounts["data"])
	require.Equal(t, launcherpod.KernelBootDir, mounts[launcherpod.KernelBootVolume])
	require.NotContains(t, mounts, "raw", "a block claim is a device, not a mount")
	require.Equal(t, []corev1.VolumeDevice{{Name: "raw", DevicePath: "/dev/raw"}}, c.VolumeDevices)
}

// The controller reads each claim's volume mode to choose mount or device.
func TestBlockClaimsComeFromTheClaimsVolumeMode(t *testing.T) {
	vmi := newVMI()
	vmi.Spec.Volumes = []kubevirtv1.Volume{
		{Name: "a", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "blk"}}},
		{Name: "b", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "fs"}}},
		{Name: "c", VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "not-yet"}}},
	}
	block := corev1.PersistentVolumeBlock
	r, _, _ := setup(t, vmi,
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "blk"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: &block}},
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fs"}},
	)
	got, err := r.blockClaims(context.Background(), vmi)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"blk": true, "fs": false}, got)
}

// A reconcile whose cache does not yet show the launcher pod it created
// cannot create a second one: the name comes from the VMI's UID.
func TestALaggingReconcileCreatesNoSecondLauncher(t *testing.T) {
	r, c, _ := setup(t, newVMI())
	vmi := newVMI()
	require.NoError(t, r.createPod(context.Background(), vmi))
	require.NoError(t, r.createPod(context.Background(), vmi), "the second create finds the first pod")
	ps := pods(t, c)
	require.Len(t, ps, 1)
	require.Regexp(t, `^virt-launcher-vm-[bcdfghjklmnpqrstvwxz2456789]{5}$`, ps[0].Name)
	other := newVMI()
	other.UID = "u2"
	require.NotEqual(t, launcherPodName(vmi), launcherPodName(other))
}

// A VMI volume named like one of the launcher pod's own volumes would
// shadow it; the pod is refused with the reason.
func TestAVolumeNamedLikeTheLaunchersOwnIsRefused(t *testing.T) {
	vmi := newVMI()
	vmi.Spec.Volumes = []kubevirtv1.Volume{{Name: launcherpod.PrivateVolume, VolumeSource: kubevirtv1.VolumeSource{
		ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "disk:1"}}}}
	_, err := launcherPod(vmi, nil)
	require.ErrorContains(t, err, "volume name virt-private is used by the launcher pod itself")
}
