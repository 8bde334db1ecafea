package evacuation

import (
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// DefaultDrainTaintKey is upstream's nodeDrainTaintKey default: upstream
// merges the KubeVirt CR over defaults that always name a key, so the
// taint is in force even on a cluster that never configured one.
const DefaultDrainTaintKey = "kubevirt.io/drain"

// DrainTaintKey is the key of the taint that evacuates a node: the
// KubeVirt CR's migrations.nodeDrainTaintKey, else the default (also
// when there is no CR).
func DrainTaintKey(kv *kubevirtv1.KubeVirt) string {
	if kv == nil || kv.Spec.Configuration.MigrationConfiguration == nil {
		return DefaultDrainTaintKey
	}
	if k := kv.Spec.Configuration.MigrationConfiguration.NodeDrainTaintKey; k != nil {
		return *k
	}
	return DefaultDrainTaintKey
}

// DrainTaint is the taint, NoSchedule, whose presence on a node has all
// its VMIs leave it: upstream's deprecated way to evacuate a node without
// evictions, and why virt-api refuses to cancel an evacuation from it.
func DrainTaint(key string) *corev1.Taint {
	return &corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule}
}

// DrainTainted tells whether node carries the drain taint of key.
func DrainTainted(node *corev1.Node, key string) bool {
	want := DrainTaint(key)
	for i := range node.Spec.Taints {
		if node.Spec.Taints[i].MatchTaint(want) {
			return true
		}
	}
	return false
}
