package hostpath

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Claims a populator fills are left to it; plain claims and claims from a
// snapshot or another claim are provisioned here.
func TestProvisionerLeavesPopulatedClaimsToTheirPopulator(t *testing.T) {
	claim := func(ref *corev1.TypedObjectReference) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{DataSourceRef: ref}}
	}
	require.False(t, populated(claim(nil)))
	require.False(t, populated(claim(&corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "src"})))
	require.False(t, populated(claim(&corev1.TypedObjectReference{APIGroup: ptr.To("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "s"})))
	require.True(t, populated(claim(&corev1.TypedObjectReference{APIGroup: ptr.To("cdi.kubevirt.io"), Kind: "VolumeImportSource", Name: "src"})))
}
