// Package networkaddonsconfig is cluster-network-addons-operator: a
// NetworkAddonsConfig gets kubemacpool, Multus (with the
// NetworkAttachmentDefinition CRD), the Linux bridge CNI plugins,
// bridge-marker and kubevirt-ipam-controller (with the IPAMClaim CRD),
// each reported in the CR's conditions by its workload's readiness.
package networkaddonsconfig

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
)

// NotBuilt are upstream's NetworkAddonsConfig components virtflow lacks,
// named as the spec fields that ask for them.
var NotBuilt = []string{"ovs", "macvtap", "kubeSecondaryDNS", "multusDynamicNetworks", "nmstate"}

// Components are the NetworkAddonsConfig components virtflow deploys; a
// component's first object is the workload whose readiness is its own.
var Components = []string{KubeMacPool, Multus, LinuxBridge, BridgeMarker, KubevirtIpamController}

// Kind describes the NetworkAddonsConfig operator for the component reconciler.
func Kind(version string) workloads.Kind {
	return workloads.Kind{
		GVK:        schema.GroupVersionKind{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"},
		Components: Components,
		NotBuilt:   NotBuilt,
		Wanted:     wanted,
		Finalizer:  "networkaddonsoperator.network.kubevirt.io/finalizer",
		Style:      workloads.ConditionsV1,
		Version:    version,
	}
}

// wanted is what the NetworkAddonsConfig's spec asks for, as upstream's
// operator deploys only the components its spec names: bridge-marker
// comes with linuxBridge.
func wanted(owner *unstructured.Unstructured) []string {
	asked := func(field string) bool {
		v, ok, _ := unstructured.NestedFieldNoCopy(owner.Object, "spec", field)
		return ok && v != nil
	}
	var out []string
	fields := map[string][]string{"kubeMacPool": {KubeMacPool}, "multus": {Multus}, "linuxBridge": {LinuxBridge, BridgeMarker},
		"kubevirtIpamController": {KubevirtIpamController}}
	for field, names := range fields {
		if asked(field) {
			out = append(out, names...)
		}
	}
	for _, field := range NotBuilt {
		if asked(field) {
			out = append(out, field)
		}
	}
	return out
}

// Install is what cluster-network-addons-operator's workloads are made of.
type Install struct {
	// Namespace is where the components run (the operator's).
	Namespace string
	// Image holds /usr/bin/virtflow, which runs the components.
	Image string
	// MultusImage holds Multus's thin plugin at MultusBinarySource.
	MultusImage string
	// LinuxBridgeImage holds the bridge and tuning plugins under
	// PluginSourceDir, and a shell.
	LinuxBridgeImage string
	// CNIBinDir and CNIConfDir are the node's CNI directories, the same
	// on every node: plugins installed in the first (which the runtime
	// must search), configuration written in the second.
	CNIBinDir, CNIConfDir string
}

// Upstream's CNI directories, where a node keeps them by default.
const (
	DefaultCNIBinDir  = "/opt/cni/bin"
	DefaultCNIConfDir = "/etc/cni/net.d"
)

func (in Install) cniBinDir() string { return orDefault(in.CNIBinDir, DefaultCNIBinDir) }

func (in Install) cniConfDir() string { return orDefault(in.CNIConfDir, DefaultCNIConfDir) }

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Render returns a component's objects.
func (in Install) Render(ctx context.Context, c client.Reader, owner client.Object, name string) ([]client.Object, error) {
	switch name {
	case KubeMacPool:
		return in.kubeMacPool(ctx, c, owner)
	case Multus:
		return in.multus(), nil
	case LinuxBridge:
		return in.linuxBridge(), nil
	case BridgeMarker:
		return in.bridgeMarker(), nil
	case KubevirtIpamController:
		return in.kubevirtIpamController(ctx, c, owner)
	}
	return nil, fmt.Errorf("cluster-network-addons-operator has no workload for %s", name)
}
