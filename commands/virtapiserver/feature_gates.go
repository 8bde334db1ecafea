package virtapiserver

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/virtflow/virtflow/operators/kubevirt/virtadmission"
)

// watchFeatureGates keeps admission's gates and the cluster's eviction
// strategy as the KubeVirt CR has them, as upstream's virt-api follows its
// cluster configuration: a gate turned on, or an eviction strategy set,
// through the HyperConverged is honoured within seconds, no restart.
func watchFeatureGates(ctx context.Context, mgr ctrl.Manager) error {
	inf, err := mgr.GetCache().GetInformer(ctx, &kubevirtv1.KubeVirt{})
	if err != nil {
		return fmt.Errorf("watching the KubeVirt CR: %w", err)
	}
	set := func(obj any) {
		if kv, ok := obj.(*kubevirtv1.KubeVirt); ok {
			virtadmission.SetFeatureGates(kv)
			virtadmission.SetEvictionStrategy(kv)
		}
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, obj any) { set(obj) },
		DeleteFunc: func(any) {
			virtadmission.SetFeatureGates(nil)
			virtadmission.SetEvictionStrategy(nil)
		},
	})
	if err != nil {
		return fmt.Errorf("watching the KubeVirt CR: %w", err)
	}
	return nil
}
