package kubevirt

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/workloads"
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
	// DomainType, when set, overrides virt-handler's KVM detection.
	DomainType string
}

// Labels the workloads share.
const (
	componentLabel = "kubevirt.io"
	managedBy      = "virt-operator"
)

// Render returns a component's objects.
func (in Install) Render(ctx context.Context, c client.Reader, owner client.Object, name string) ([]client.Object, error) {
	ns := owner.GetNamespace()
	switch name {
	case "virt-api":
		return in.virtAPI(ctx, c, ns)
	case "virt-controller":
		return append([]client.Object{in.controller(ns)}, identity(ns, name)...), nil
	case "virt-handler":
		return append([]client.Object{in.handler(ns)}, identity(ns, name)...), nil
	}
	return nil, fmt.Errorf("virt-operator has no workload for %s", name)
}

func labels(name string) map[string]string {
	return map[string]string{componentLabel: name, "app.kubernetes.io/managed-by": managedBy, "app.kubernetes.io/component": "kubevirt"}
}

func selector(name string) map[string]string { return map[string]string{componentLabel: name} }

func (in Install) controller(ns string) *appsv1.Deployment {
	c := workloads.Container(in.Image, "virt-controller", "virt-controller", nil)
	c.SecurityContext = workloads.NonRoot()
	return workloads.Deployment(ns, "virt-controller", "kubevirt-controller", labels("virt-controller"), selector("virt-controller"), c)
}

// HandlerScratchVolume is virt-handler's /tmp, where imports keep their
// scratch files.
const HandlerScratchVolume = "scratch"

func (in Install) handler(ns string) *appsv1.DaemonSet {
	l := labels("virt-handler")
	args := []string{"--kubelet-root=" + in.KubeletRoot, "--node-dir=" + in.NodeDir, "--temporal-address=" + in.TemporalAddress}
	c := workloads.Container(in.Image, "virt-handler", "virt-handler", args)
	c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To(int64(0))}
	if in.DomainType != "" {
		c.Env = append(c.Env, corev1.EnvVar{Name: "VIRTFLOW_DOMAIN_TYPE", Value: in.DomainType})
	}
	c.Env = append(c.Env, workloads.FieldEnv(workloads.NodeNameEnv, "spec.nodeName"))
	vols := []corev1.Volume{
		workloads.HostDir("kubelet-root", in.KubeletRoot), workloads.HostDir("node-dir", in.NodeDir),
		workloads.HostDir("libvirt-cache", launcherpod.HostCacheDir),
	}
	for _, v := range vols {
		// The same paths inside and out: the agent writes paths the
		// kubelet and the launchers read.
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: v.HostPath.Path})
	}
	// Imports keep their scratch files in /tmp; on a volume of the pod
	// they survive a restart of the container and do not grow its layer.
	vols = append(vols, corev1.Volume{Name: HandlerScratchVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: HandlerScratchVolume, MountPath: "/tmp"})
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "virt-handler", Labels: l},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: selector("virt-handler")},
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
