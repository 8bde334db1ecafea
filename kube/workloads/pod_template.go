package workloads

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Ports every component pod serves on its pod IP.
const (
	// HealthPort serves /healthz and /readyz.
	HealthPort = 8081
	// MetricsPort serves Prometheus metrics.
	MetricsPort = 8080
)

// PodIPEnv, NodeNameEnv and NamespaceEnv are the downward-API variables
// the component commands read.
const (
	PodIPEnv     = "POD_IP"
	NodeNameEnv  = "NODE_NAME"
	NamespaceEnv = "POD_NAMESPACE"
)

// Container runs `virtflow <command> args...` from image, with the
// downward-API environment, the health and metrics ports and a readiness
// probe on /readyz.
func Container(image, name, command string, args []string) corev1.Container {
	probe := &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/readyz", Port: intstr.FromInt32(HealthPort),
		}},
		PeriodSeconds: 2, FailureThreshold: 3,
	}
	return corev1.Container{
		Name: name, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command: append([]string{"/usr/bin/virtflow", command}, args...),
		Env:     []corev1.EnvVar{FieldEnv(PodIPEnv, "status.podIP"), FieldEnv(NamespaceEnv, "metadata.namespace")},
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

// NonRoot is the security context of components that need no host access.
func NonRoot() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65534)), AllowPrivilegeEscalation: ptr.To(false),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// FieldEnv is an environment variable from the pod's own fields.
func FieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

// HostDir is a host directory volume, created when missing.
func HostDir(name, path string) corev1.Volume {
	t := corev1.HostPathDirectoryOrCreate
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &t}}}
}

// SecretVolume projects only keys of a Secret, so that what a pod does not
// need (a CA's key, a signing key) stays out of it.
func SecretVolume(name, secret string, keys ...string) corev1.Volume {
	items := make([]corev1.KeyToPath, 0, len(keys))
	for _, k := range keys {
		items = append(items, corev1.KeyToPath{Key: k, Path: k})
	}
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret, Items: items}}}
}

// Deployment is one replica of a pod running c as account; selector picks
// its pods out of labels.
func Deployment(ns, name, account string, labels, selector map[string]string, c corev1.Container, vols ...corev1.Volume) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName: account, Containers: []corev1.Container{c}, Volumes: vols,
				},
			},
		},
	}
}
