package hyperconverged

import (
	"context"
	"fmt"

	"k8s.io/utils/ptr"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
)

// defaultEvictionStrategy is HCO's cluster-wide eviction strategy for a
// HyperConverged that names none: a drained node's VMs migrate where
// another worker can take them, and are shut down on a single worker,
// where a migration could never find a target and would block the drain.
func defaultEvictionStrategy(highlyAvailable bool) hcov1beta1.EvictionStrategy {
	if highlyAvailable {
		return hcov1beta1.EvictionStrategyLiveMigrate
	}
	return hcov1beta1.EvictionStrategyNone
}

// ensureEvictionStrategy fills in a missing spec.evictionStrategy from the
// infrastructure measured, once the install created the components: the
// webhook dry-runs every spec change on the KubeVirt, CDI and
// NetworkAddonsConfig and refuses it while one is missing, as HCO's does.
// The components then follow the spec. Upstream reaches the same spec
// through its mutating webhook, on an update its reconciler sends once
// the status is stored; this reconciler patches status on its own, so it
// applies the webhook's rule itself. A strategy once set stays when nodes
// come or go, as upstream's does: only removing it asks for the default
// again. It tells whether it set the strategy.
func (r *Reconciler) ensureEvictionStrategy(ctx context.Context, hc *hcov1beta1.HyperConverged, highlyAvailable bool) (bool, error) {
	if hc.Spec.EvictionStrategy != nil {
		return false, nil
	}
	before := hc.DeepCopy()
	hc.Spec.EvictionStrategy = ptr.To(defaultEvictionStrategy(highlyAvailable))
	if err := r.Client.Patch(ctx, hc, crclient.MergeFrom(before)); err != nil {
		return false, fmt.Errorf("defaulting HyperConverged %s's eviction strategy: %w", hc.Name, err)
	}
	log.FromContext(ctx).Info("defaulted the eviction strategy", "evictionStrategy", *hc.Spec.EvictionStrategy, "infrastructureHighlyAvailable", highlyAvailable)
	return true, nil
}
