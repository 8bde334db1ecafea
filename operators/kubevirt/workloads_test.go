package kubevirt

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var install = Install{
	Image: "virtflow.local/virtflow:abc", TemporalAddress: "10.244.0.1:7233",
	KubeletRoot: "/data/node/kubelet", NodeDir: "/data/nodes", ClusterRole: "virtflow",
}

func owner() client.Object {
	return &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt-hyperconverged", Name: "kv"}}
}

func TestVirtHandlerIsAPrivilegedDaemonSetSeeingTheNodePathsWhereTheyAre(t *testing.T) {
	objs, err := install.Render(owner(), "virt-handler")
	require.NoError(t, err)
	ds := objs[0].(*appsv1.DaemonSet)
	require.Equal(t, "kubevirt-hyperconverged", ds.Namespace)
	require.Equal(t, "virt-handler", ds.Name)
	pod := ds.Spec.Template.Spec
	require.Equal(t, "kubevirt-handler", pod.ServiceAccountName)
	c := pod.Containers[0]
	require.True(t, *c.SecurityContext.Privileged)
	require.Equal(t, []string{"/usr/bin/virtflow", "virt-handler", "--kubelet-root=/data/node/kubelet",
		"--node-dir=/data/nodes", "--temporal-address=10.244.0.1:7233"}, c.Command)
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, v := range pod.Volumes {
		require.Equal(t, v.HostPath.Path, mounts[v.Name], "volume %s is not mounted where it is on the node", v.Name)
	}
	require.Contains(t, mounts, "kubelet-root")
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			env[e.Name] = e.ValueFrom.FieldRef.FieldPath
		}
	}
	require.Equal(t, map[string]string{NodeNameEnv: "spec.nodeName", PodIPEnv: "status.podIP", NamespaceEnv: "metadata.namespace"}, env)
	require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	require.Equal(t, ds.Spec.Selector.MatchLabels[componentLabel], ds.Spec.Template.Labels[componentLabel])
}

func TestVirtControllerRunsUnprivilegedWithItsOwnIdentity(t *testing.T) {
	objs, err := install.Render(owner(), "virt-controller")
	require.NoError(t, err)
	d := objs[0].(*appsv1.Deployment)
	sc := d.Spec.Template.Spec.Containers[0].SecurityContext
	require.True(t, *sc.RunAsNonRoot)
	require.False(t, *sc.AllowPrivilegeEscalation)
	require.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	sa := objs[1].(*corev1.ServiceAccount)
	require.Equal(t, d.Spec.Template.Spec.ServiceAccountName, sa.Name)
	for _, o := range objs {
		require.NotEmpty(t, o.GetObjectKind().GroupVersionKind().Kind, "%s has no kind to apply", o.GetName())
	}
}

func TestVirtAPIIsNotAPodYet(t *testing.T) {
	_, err := install.Render(owner(), "virt-api")
	require.EqualError(t, err, "virt-operator has no workload for virt-api")
	require.False(t, PodComponents["virt-api"])
}
