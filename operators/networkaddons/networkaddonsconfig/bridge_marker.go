package networkaddonsconfig

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/networkaddons/bridgemarker"
)

// Names of bridge-marker's objects, upstream's.
const (
	// BridgeMarker is the component's name in the CR's conditions, and
	// the name of its DaemonSet and ServiceAccount.
	BridgeMarker = "bridge-marker"
	// BridgeMarkerRole and BridgeMarkerBinding are its ClusterRole and
	// ClusterRoleBinding.
	BridgeMarkerRole    = "bridge-marker-cr"
	BridgeMarkerBinding = "bridge-marker-crb"
)

func markerLabels() map[string]string {
	return map[string]string{"tier": "node", "app": "bridge-marker",
		"app.kubernetes.io/managed-by": "cnao-operator", "app.kubernetes.io/component": "network"}
}

// BridgeMarkerAccess is upstream's bridge-marker role: it reads its Node
// and patches its status.
func BridgeMarkerAccess() workloads.Access {
	return workloads.Access{Role: BridgeMarkerRole, Cluster: []rbacv1.PolicyRule{
		workloads.Rule("", []string{"get", "update", "patch"}, "nodes", "nodes/status"),
	}}
}

// BridgeMarkerRBAC is bridge-marker's ServiceAccount, ClusterRole and
// ClusterRoleBinding (upstream's name) in ns.
func BridgeMarkerRBAC(ns string) []client.Object {
	objs := workloads.Identity(ns, BridgeMarker, BridgeMarkerAccess(), markerLabels())
	for _, o := range objs {
		if b, ok := o.(*rbacv1.ClusterRoleBinding); ok {
			b.Name = BridgeMarkerBinding
		}
	}
	return objs
}

// bridgeMarker runs `virtflow bridge-marker` on every node's own network
// (hostNetwork: the node's bridges are what it publishes), unprivileged:
// listing links needs no capability.
func (in Install) bridgeMarker() []client.Object {
	port := bridgemarker.HealthPort
	c := workloads.Container(in.Image, BridgeMarker, BridgeMarker, []string{"--node-name=$(" + workloads.NodeNameEnv + ")", "--health-probe-port=" + strconv.Itoa(port)})
	c.Env = append(c.Env, workloads.FieldEnv(workloads.NodeNameEnv, "spec.nodeName"))
	c.Ports = []corev1.ContainerPort{{Name: "healthport", ContainerPort: int32(port), Protocol: corev1.ProtocolTCP}}
	probe := func(path string, period int32) *corev1.Probe {
		return &corev1.Probe{PeriodSeconds: period, ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromString("healthport"),
		}}}
	}
	// Ready once the Node shows this node's bridges; alive while serving.
	c.ReadinessProbe, c.LivenessProbe = probe("/readyz", 2), probe("/healthz", 20)
	c.LivenessProbe.InitialDelaySeconds = 10
	c.SecurityContext = workloads.NonRoot()
	c.SecurityContext.ReadOnlyRootFilesystem = ptr.To(true)
	ds := daemonSet(in.Namespace, BridgeMarker, markerLabels(), map[string]string{"name": BridgeMarker}, c)
	spec := &ds.Spec.Template.Spec
	spec.ServiceAccountName, spec.HostNetwork, spec.PriorityClassName = BridgeMarker, true, "system-node-critical"
	ds.Spec.Template.Annotations = map[string]string{"description": "Bridge marker exposes network bridges available on nodes as node resources"}
	return append([]client.Object{ds}, BridgeMarkerRBAC(in.Namespace)...)
}
