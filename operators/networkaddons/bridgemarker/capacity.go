// Package bridgemarker is bridge-marker: it publishes each Linux bridge of
// a node as the extended resource bridge.network.kubevirt.io/<bridge> in
// the Node's capacity and allocatable, so that a pod whose network
// attachment names the bridge (the NetworkAttachmentDefinition's
// k8s.v1.cni.cncf.io/resourceName) is only scheduled where it exists.
package bridgemarker

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ResourcePrefix is upstream's resource namespace for bridges.
const ResourcePrefix = "bridge.network.kubevirt.io/"

// Quantity is what each bridge offers: Kubernetes has no unlimited
// resources, and upstream takes a thousand attachments as enough.
const Quantity = "1k"

// HealthPort serves /healthz and /readyz, upstream's port.
const HealthPort = 8081

// ResourceName is a bridge's resource.
func ResourceName(bridge string) corev1.ResourceName {
	return corev1.ResourceName(ResourcePrefix + bridge)
}

// Op is one JSON patch operation on the Node's status.
type Op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value string `json:"value,omitempty"`
}

// Patch is what brings node's capacity and allocatable to bridges: an add
// for each bridge a list lacks (or shows with another quantity), a remove
// for each bridge resource whose bridge is gone. Resources of other
// prefixes are never touched. Empty when the node is up to date.
func Patch(node *corev1.Node, bridges []string) []Op {
	want := map[corev1.ResourceName]bool{}
	for _, b := range bridges {
		want[ResourceName(b)] = true
	}
	ops := listPatch("capacity", node.Status.Capacity, want)
	return append(ops, listPatch("allocatable", node.Status.Allocatable, want)...)
}

func listPatch(field string, have corev1.ResourceList, want map[corev1.ResourceName]bool) []Op {
	var ops []Op
	for name := range have {
		if strings.HasPrefix(string(name), ResourcePrefix) && !want[name] {
			ops = append(ops, Op{Op: "remove", Path: path(field, name)})
		}
	}
	for name := range want {
		if q, ok := have[name]; !ok || q.String() != Quantity {
			ops = append(ops, Op{Op: "add", Path: path(field, name), Value: Quantity})
		}
	}
	sortOps(ops)
	return ops
}

// path is the JSON pointer to a resource: its "/" escaped as "~1".
func path(field string, name corev1.ResourceName) string {
	return "/status/" + field + "/" + strings.ReplaceAll(strings.ReplaceAll(string(name), "~", "~0"), "/", "~1")
}

// sortOps orders a patch the same way every time: removes first, by path.
func sortOps(ops []Op) {
	slices.SortFunc(ops, func(a, b Op) int {
		if a.Op != b.Op {
			return cmp.Compare(b.Op, a.Op) // "remove" before "add"
		}
		return cmp.Compare(a.Path, b.Path)
	})
}
