package evacuation

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Upstream merges the CR over defaults that name kubevirt.io/drain, so a
// CR without the key, or no CR, still has the default in force.
func TestTheDrainTaintKeyDefaultsAsUpstreams(t *testing.T) {
	key := "example.com/maintenance"
	for want, kv := range map[string]*kubevirtv1.KubeVirt{
		"kubevirt.io/drain": {Spec: kubevirtv1.KubeVirtSpec{Configuration: kubevirtv1.KubeVirtConfiguration{
			MigrationConfiguration: &kubevirtv1.MigrationConfiguration{}}}},
		key: {Spec: kubevirtv1.KubeVirtSpec{Configuration: kubevirtv1.KubeVirtConfiguration{
			MigrationConfiguration: &kubevirtv1.MigrationConfiguration{NodeDrainTaintKey: &key}}}},
	} {
		require.Equal(t, want, DrainTaintKey(kv))
	}
	require.Equal(t, "kubevirt.io/drain", DrainTaintKey(nil))
	require.Equal(t, "kubevirt.io/drain", DrainTaintKey(&kubevirtv1.KubeVirt{}))
}

func TestOnlyTheNoScheduleTaintOfTheKeyDrains(t *testing.T) {
	node := func(taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{Spec: corev1.NodeSpec{Taints: taints}}
	}
	require.True(t, DrainTainted(node(corev1.Taint{Key: "kubevirt.io/drain", Value: "x", Effect: corev1.TaintEffectNoSchedule}), "kubevirt.io/drain"))
	require.False(t, DrainTainted(node(corev1.Taint{Key: "kubevirt.io/drain", Effect: corev1.TaintEffectNoExecute}), "kubevirt.io/drain"))
	require.False(t, DrainTainted(node(corev1.Taint{Key: "other", Effect: corev1.TaintEffectNoSchedule}), "kubevirt.io/drain"))
	require.False(t, DrainTainted(node(), "kubevirt.io/drain"))
}
