package kubevirt

import (
	"context"
	"fmt"

	"github.com/virtflow/virtflow/kube/uploadtoken"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/temporalauth"
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
	// TemporalTLS, when set, has the node worker dial with the node
	// worker's certificate; nil dials in plaintext.
	TemporalTLS *workloads.TemporalTLS
	// KubeletRoot is the kubelet's root directory on every node.
	KubeletRoot string
	// NodeDir keeps virt-handler's per-node state, one directory per node.
	NodeDir string
	// HostRoot prefixes the hostpath storage pools' paths on every node:
	// the node's disk work writes only volumes under it.
	HostRoot string
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
		return in.virtAPI(ctx, c, owner)
	case "virt-controller":
		replicas, err := controllerReplicas(ctx, c, owner)
		if err != nil {
			return nil, err
		}
		d := in.controller(ns)
		pdb := replicated(d, replicas)
		return append(append([]client.Object{d}, identity(ns, name)...), pdb), nil
	case "virt-handler":
		return in.handlerObjects(ctx, c, ns)
	}
	return nil, fmt.Errorf("virt-operator has no workload for %s", name)
}

func labels(name string) map[string]string {
	return map[string]string{componentLabel: name, "app.kubernetes.io/managed-by": managedBy, "app.kubernetes.io/component": "kubevirt"}
}

func selector(name string) map[string]string { return map[string]string{componentLabel: name} }

func (in Install) controller(ns string) *appsv1.Deployment {
	// It starts and cancels the migration workflows.
	c := workloads.Container(in.Image, "virt-controller", "virt-controller", []string{"--temporal-address=" + in.TemporalAddress})
	c.SecurityContext = workloads.NonRoot()
	vols := workloads.TemporalClient(&c, in.TemporalTLS, temporalauth.VirtController)
	return workloads.Deployment(ns, "virt-controller", "kubevirt-controller", labels("virt-controller"), selector("virt-controller"), c, vols...)
}

// HandlerScratchVolume is virt-handler's /tmp, where imports keep their
// scratch files.
const HandlerScratchVolume = "scratch"

func (in Install) handler(ns string) *appsv1.DaemonSet {
	l := labels("virt-handler")
	args := []string{"--kubelet-root=" + in.KubeletRoot, "--node-dir=" + in.NodeDir, "--temporal-address=" + in.TemporalAddress,
		"--node-api-tls-dir=" + HandlerServerCertDir, "--host-root=" + in.HostRoot, "--upload-key-dir=" + uploadtoken.KeyDir,
		"--upload-tls-dir=" + uploadtoken.ServerCertDir, "--migration-client-tls-dir=" + HandlerClientCertDir}
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
	vols = append(vols, workloads.TemporalClient(&c, in.TemporalTLS, temporalauth.NodeWorker)...)
	// Imports keep their scratch files in /tmp; on a volume of the pod
	// they survive a restart of the container and do not grow its layer.
	vols = append(vols, corev1.Volume{Name: HandlerScratchVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		handlerTLSVolume(HandlerServerCerts), handlerTLSVolume(HandlerClientCerts), uploadKeyVolume(), uploadServerVolume())
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: HandlerScratchVolume, MountPath: "/tmp"},
		corev1.VolumeMount{Name: HandlerServerCerts, MountPath: HandlerServerCertDir, ReadOnly: true},
		// The source of a migration joins the target's ports as a client of
		// the agents' CA, as upstream's virt-handler mounts it.
		corev1.VolumeMount{Name: HandlerClientCerts, MountPath: HandlerClientCertDir, ReadOnly: true},
		corev1.VolumeMount{Name: uploadKeyVolumeName, MountPath: uploadtoken.KeyDir, ReadOnly: true},
		corev1.VolumeMount{Name: uploadtoken.ServerCertsSecret, MountPath: uploadtoken.ServerCertDir, ReadOnly: true})
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "virt-handler", Labels: l},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: selector("virt-handler")},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{
					ServiceAccountName: "kubevirt-handler", Containers: []corev1.Container{c}, Volumes: vols,
					// Launcher pods' network namespaces are reached through
					// their processes, as upstream's virt-handler does.
					HostPID:     true,
					Tolerations: []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
				},
			},
		},
	}
}
