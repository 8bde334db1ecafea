package hostpathprovisioner

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/kube/workloads"
)

// Install is what the hostpath-provisioner-operator's CSI DaemonSet is
// made of.
type Install struct {
	// Namespace is where the DaemonSet runs; the CR is cluster-scoped.
	Namespace string
	// Image holds /usr/bin/virtflow: the driver and the registrar and
	// liveness sidecars.
	Image string
	// ProvisionerImage is kubernetes-csi's external-provisioner.
	ProvisionerImage string
	// KubeletRoot is the kubelet's root directory on every node.
	KubeletRoot string
	// HostRoot prefixes the pools' paths on every node ("/" on a cluster).
	HostRoot string
}

// Names of the DaemonSet, its account and its driver.
const (
	CSIDaemonSet   = "hostpath-provisioner-csi"
	serviceAccount = "hostpath-provisioner-admin-csi"
	driverName     = "kubevirt.io.hostpath-provisioner"
	livenessPort   = 9808
	socketDir      = "/csi"
)

// Render returns the CSI DaemonSet for the CR's pools.
func (in Install) Render(_ context.Context, _ client.Reader, owner client.Object, name string) ([]client.Object, error) {
	if name != CSIDaemonSet {
		return nil, fmt.Errorf("hostpath-provisioner-operator has no workload for %s", name)
	}
	paths, err := poolPaths(owner)
	if err != nil {
		return nil, err
	}
	l := map[string]string{"k8s-app": CSIDaemonSet, "app.kubernetes.io/managed-by": "hostpath-provisioner-operator", "app.kubernetes.io/component": "storage"}
	return append([]client.Object{in.daemonSet(l, paths)}, RBAC(in.Namespace, l)...), nil
}

// poolPaths are the CR's pool directories (and its legacy pathConfig).
func poolPaths(owner client.Object) ([]string, error) {
	hpp := &hppv1beta1.HostPathProvisioner{}
	if u, ok := owner.(*unstructured.Unstructured); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, hpp); err != nil {
			return nil, fmt.Errorf("reading HostPathProvisioner %s: %w", owner.GetName(), err)
		}
	} else if typed, ok := owner.(*hppv1beta1.HostPathProvisioner); ok {
		hpp = typed
	}
	var paths []string
	for _, sp := range hpp.Spec.StoragePools {
		paths = append(paths, sp.Path)
	}
	if pc := hpp.Spec.PathConfig; pc != nil && pc.Path != "" {
		paths = append(paths, pc.Path)
	}
	return paths, nil
}

func (in Install) daemonSet(l map[string]string, pools []string) *appsv1.DaemonSet {
	plugin := filepath.Join(in.KubeletRoot, "plugins", driverName)
	vols := []corev1.Volume{
		workloads.HostDir("socket-dir", plugin), workloads.HostDir("kubelet-root", in.KubeletRoot),
		workloads.HostDir("registration-dir", filepath.Join(in.KubeletRoot, "plugins_registry")),
	}
	driver := in.driver()
	for i, p := range pools {
		host := filepath.Join(in.HostRoot, p)
		v := workloads.HostDir("pool-"+strconv.Itoa(i), host)
		vols = append(vols, v)
		// Where it is on the node: volumes name their directories by it.
		driver.VolumeMounts = append(driver.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: host})
	}
	socket := corev1.VolumeMount{Name: "socket-dir", MountPath: socketDir}
	registrar := workloads.Container(in.Image, "node-driver-registrar", "csi-node-registrar", []string{
		"--kubelet-registration-path=" + filepath.Join(plugin, "csi.sock"), "--plugin-registration-path=/registration",
	})
	registrar.VolumeMounts = []corev1.VolumeMount{socket, {Name: "registration-dir", MountPath: "/registration"}}
	liveness := workloads.Container(in.Image, "liveness-probe", "csi-livenessprobe", []string{
		"--csi-address=" + socketDir + "/csi.sock", "--health-port=" + strconv.Itoa(livenessPort),
	})
	liveness.VolumeMounts = []corev1.VolumeMount{socket}
	for _, c := range []*corev1.Container{&registrar, &liveness} {
		c.ReadinessProbe, c.Ports = nil, nil
	}
	pod := corev1.PodSpec{
		ServiceAccountName: serviceAccount, Volumes: vols,
		Containers:  []corev1.Container{driver, registrar, liveness, in.provisioner(socket)},
		Tolerations: []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
	}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: in.Namespace, Name: CSIDaemonSet, Labels: l},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": CSIDaemonSet}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l}, Spec: pod},
		},
	}
}

// driver serves the CSI socket; privileged, as its bind mounts into pods'
// volume directories must reach the node (Bidirectional propagation).
func (in Install) driver() corev1.Container {
	c := workloads.Container(in.Image, "hostpath-provisioner", "hostpath-csi", []string{
		"--csi-address=" + socketDir + "/csi.sock", "--host-root=" + in.HostRoot,
	})
	c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To(int64(0))}
	c.Env = append(c.Env, workloads.FieldEnv(workloads.NodeNameEnv, "spec.nodeName"))
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "healthz", ContainerPort: livenessPort, Protocol: corev1.ProtocolTCP})
	c.LivenessProbe = &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("healthz")}},
		PeriodSeconds: 10, FailureThreshold: 5, InitialDelaySeconds: 10,
	}
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "socket-dir", MountPath: socketDir},
		{Name: "kubelet-root", MountPath: in.KubeletRoot, MountPropagation: ptr.To(corev1.MountPropagationBidirectional)},
	}
	return c
}

// provisioner is kubernetes-csi's external-provisioner, one per node:
// it provisions a claim's volume on the node the scheduler chose.
func (in Install) provisioner(socket corev1.VolumeMount) corev1.Container {
	return corev1.Container{
		Name: "csi-provisioner", Image: in.ProvisionerImage, ImagePullPolicy: corev1.PullIfNotPresent,
		Args: []string{
			"--csi-address=" + socketDir + "/csi.sock", "--node-deployment=true", "--strict-topology=true",
			"--immediate-topology=false", "--feature-gates=Topology=true", "--extra-create-metadata=true", "--v=3",
		},
		Env:          []corev1.EnvVar{workloads.FieldEnv(workloads.NodeNameEnv, "spec.nodeName")},
		VolumeMounts: []corev1.VolumeMount{socket},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
		},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
}
