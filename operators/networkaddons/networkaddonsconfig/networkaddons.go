// Package networkaddonsconfig is cluster-network-addons-operator. Upstream, a
// NetworkAddonsConfig gets kubemacpool, bridge-marker and the linux-bridge
// plugin; virtflow deploys kubemacpool and names the others as not built in
// the CR's conditions.
package networkaddonsconfig

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
)

// NotBuilt are upstream's NetworkAddonsConfig components virtflow lacks.
var NotBuilt = []string{"bridge-marker", "linux-bridge"}

// Components are the NetworkAddonsConfig components virtflow deploys.
var Components = []string{KubeMacPool}

// Kind describes the NetworkAddonsConfig operator for the component reconciler.
func Kind(version string) workloads.Kind {
	return workloads.Kind{
		GVK:        schema.GroupVersionKind{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"},
		Components: Components,
		NotBuilt:   NotBuilt,
		Finalizer:  "networkaddonsoperator.network.kubevirt.io/finalizer",
		Style:      workloads.ConditionsV1,
		Version:    version,
	}
}

// Install is what cluster-network-addons-operator's workloads are made of.
type Install struct {
	// Namespace is where the components run (the operator's).
	Namespace string
	// Image holds /usr/bin/virtflow, which runs the components.
	Image string
}

// Render returns a component's objects.
func (in Install) Render(ctx context.Context, c client.Reader, owner client.Object, name string) ([]client.Object, error) {
	switch name {
	case KubeMacPool:
		return in.kubeMacPool(ctx, c, owner)
	}
	return nil, fmt.Errorf("cluster-network-addons-operator has no workload for %s", name)
}
