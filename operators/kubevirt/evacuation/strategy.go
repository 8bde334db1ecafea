package evacuation

import (
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Strategy is the eviction strategy in effect for a VMI: its own, else
// the cluster's (the KubeVirt CR's spec.configuration.evictionStrategy);
// nil means neither says, which upstream treats as None.
func Strategy(vmi *kubevirtv1.VirtualMachineInstance, cluster *kubevirtv1.EvictionStrategy) *kubevirtv1.EvictionStrategy {
	if vmi != nil && vmi.Spec.EvictionStrategy != nil {
		return vmi.Spec.EvictionStrategy
	}
	return cluster
}

// ClusterStrategy is the eviction strategy a KubeVirt CR sets for every
// VMI that sets none; nil when there is no CR.
func ClusterStrategy(kv *kubevirtv1.KubeVirt) *kubevirtv1.EvictionStrategy {
	if kv == nil {
		return nil
	}
	return kv.Spec.Configuration.EvictionStrategy
}

// MigratableOnEviction tells whether a drain should move the VMI rather
// than leave it to the eviction: LiveMigrate always (a VMI that cannot
// move then blocks the drain), LiveMigrateIfPossible only while it can.
// External VMIs are marked by the webhook but moved by someone else.
func MigratableOnEviction(vmi *kubevirtv1.VirtualMachineInstance, cluster *kubevirtv1.EvictionStrategy) bool {
	s := Strategy(vmi, cluster)
	if s == nil {
		return false
	}
	switch *s {
	case kubevirtv1.EvictionStrategyLiveMigrate:
		return true
	case kubevirtv1.EvictionStrategyLiveMigrateIfPossible:
		return vmi.IsMigratable()
	}
	return false
}
