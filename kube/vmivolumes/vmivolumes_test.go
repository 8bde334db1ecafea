package vmivolumes

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestClaimNameOfEachVolumeKind(t *testing.T) {
	pvc := kubevirtv1.Volume{VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{
		PersistentVolumeClaimVolumeSource: corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c1"}}}}
	dv := kubevirtv1.Volume{VolumeSource: kubevirtv1.VolumeSource{DataVolume: &kubevirtv1.DataVolumeSource{Name: "d1"}}}
	disk := kubevirtv1.Volume{VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "x"}}}
	require.Equal(t, "c1", ClaimName(pvc))
	require.Equal(t, "d1", ClaimName(dv))
	require.Empty(t, ClaimName(disk))
}
