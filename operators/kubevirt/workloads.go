package kubevirt

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/wire/launcherpod"
)

// Install is what virt-operator's workloads are made of: the image and the
// node paths, which differ between the embedded node and a cluster.
type Install struct {
	// Image holds /usr/bin/virtflow, which runs every component.
	Image string
	// TemporalAddress is the Temporal frontend virt-handler's node worker
	// polls.
	TemporalAddress string
	// KubeletRoot is the kubelet's root directory on every node.
	KubeletRoot string
	// NodeDir keeps virt-handler's per-node state, one directory per node.
	NodeDir string
	// ClusterRole is bound to the components' service accounts.
	ClusterRole string
	// DomainType, when set, overrides virt-handler's KVM detection.
	DomainType string
}

// Labels and ports the workloads share.
const (
	componentLabel = "kubevirt.io"
	managedBy      = "virt-operator"
	// HealthPort serves /healthz and /readyz in every component pod.
	HealthPort = 8081
	// MetricsPort serves Prometheus metrics in every component pod.
	MetricsPort = 8080
)

// PodIPEnv, NodeNameEnv and NamespaceEnv are the downward-API variables
// the component commands read.
const (
	PodIPEnv     = "POD_IP"
	NodeNameEnv  = "NODE_NAME"
	NamespaceEnv = "POD_NAMESPACE"
)

// Render returns a component's objects.
func (in Install) Render(ctx context.Context, c client.Reader, owner client.Object, name string) ([]client.Object, error) {
	ns := owner.GetNamespace()
	switch name {
	case "virt-api":
		return in.virtAPI(ctx, c, ns)
	case "virt-controller":
		return append([]client.Object{in.controller(ns)}, in.identity(ns, "kubevirt-controller")...), nil
	case "virt-handler":
		return append([]client.Object{in.handler(ns)}, in.identity(ns, "kubevirt-handler")...), nil
	}
	return nil, fmt.Errorf("virt-operator has no workload for %s", name)
}

func labels(name string) map[string]string {
	return map[string]string{componentLabel: name, "app.kubernetes.io/managed-by": managedBy, "app.kubernetes.io/component": "kubevirt"}
}

// identity is a component's ServiceAccount and its binding.
func (in Install) identity(ns, account string) []client.Object {
	sa := &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: account, Labels: labels(account)},
	}
	crb := &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: account, Labels: labels(account)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: in.ClusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: account}},
	}
	return []client.Object{sa, crb}
}

func (in Install) controller(ns string) *appsv1.Deployment {
	l := labels("virt-controller")
	c := in.container("virt-controller", nil)
	c.SecurityContext = nonRoot()
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "virt-controller", Labels: l},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{componentLabel: "virt-controller"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{
					ServiceAccountName: "kubevirt-controller", Containers: []corev1.Container{c},
				},
			},
		},
	}
}

func (in Install) handler(ns string) *appsv1.DaemonSet {
	l := labels("virt-handler")
	args := []string{"--kubelet-root=" + in.KubeletRoot, "--node-dir=" + in.NodeDir, "--temporal-address=" + in.TemporalAddress}
	c := in.container("virt-handler", args)
	c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To(int64(0))}
	if in.DomainType != "" {
		c.Env = append(c.Env, corev1.EnvVar{Name: "VIRTFLOW_DOMAIN_TYPE", Value: in.DomainType})
	}
	c.Env = append(c.Env, fieldEnv(NodeNameEnv, "spec.nodeName"))
	vols := []corev1.Volume{hostDir("kubelet-root", in.KubeletRoot), hostDir("node-dir", in.NodeDir), hostDir("libvirt-cache", launcherpod.HostCacheDir)}
	for _, v := range vols {
		// The same paths inside and out: the agent writes paths the
		// kubelet and the launchers read.
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: v.HostPath.Path})
	}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "virt-handler", Labels: l},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{componentLabel: "virt-handler"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{
					ServiceAccountName: "kubevirt-handler", Containers: []corev1.Container{c}, Volumes: vols,
					Tolerations: []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
				},
			},
		},
	}
}

// container runs `virtflow <name>` with the downward-API environment and
// health and metrics ports.
func (in Install) container(name string, args []string) corev1.Container {
	probe := &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/readyz", Port: intstr.FromInt32(HealthPort),
		}},
		PeriodSeconds: 2, FailureThreshold: 3,
	}
	return corev1.Container{
		Name: name, Image: in.Image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command: append([]string{"/usr/bin/virtflow", name}, args...),
		Env:     []corev1.EnvVar{fieldEnv(PodIPEnv, "status.podIP"), fieldEnv(NamespaceEnv, "metadata.namespace")},
		Ports: []corev1.ContainerPort{
			{Name: "health", ContainerPort: HealthPort, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
		},
		ReadinessProbe: probe,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
		}},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
}

// nonRoot is the security context of the components that need no host
// access.
func nonRoot() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65534)), AllowPrivilegeEscalation: ptr.To(false),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

func hostDir(name, path string) corev1.Volume {
	t := corev1.HostPathDirectoryOrCreate
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &t}}}
}
