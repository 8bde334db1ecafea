package hostpathprovisioner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
)

func TestCSIDaemonSetRunsTheDriverWithTheSidecarsAndSeesPoolsWhereTheyAre(t *testing.T) {
	hpp := &hppv1beta1.HostPathProvisioner{
		ObjectMeta: metav1.ObjectMeta{Name: "hpp"},
		Spec:       hppv1beta1.HostPathProvisionerSpec{StoragePools: []hppv1beta1.StoragePool{{Name: "local", Path: "/var/hpvolumes"}}},
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hpp)
	require.NoError(t, err)
	in := Install{Namespace: "ns", Image: "img", ProvisionerImage: "prov:v5", KubeletRoot: "/data/kubelet", HostRoot: "/data/host"}
	objs, err := in.Render(context.Background(), nil, &unstructured.Unstructured{Object: m}, CSIDaemonSet)
	require.NoError(t, err)
	ds := objs[0].(*appsv1.DaemonSet)
	pod := ds.Spec.Template.Spec
	names := []string{}
	for _, c := range pod.Containers {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"hostpath-provisioner", "node-driver-registrar", "liveness-probe", "csi-provisioner"}, names)
	require.Equal(t, "prov:v5", pod.Containers[3].Image)
	require.Contains(t, pod.Containers[3].Args, "--node-deployment=true")
	require.Contains(t, pod.Containers[1].Command, "--kubelet-registration-path=/data/kubelet/plugins/kubevirt.io.hostpath-provisioner/csi.sock")

	driver := pod.Containers[0]
	require.True(t, *driver.SecurityContext.Privileged)
	mounts := map[string]corev1.VolumeMount{}
	for _, vm := range driver.VolumeMounts {
		mounts[vm.MountPath] = vm
	}
	require.Equal(t, corev1.MountPropagationBidirectional, *mounts["/data/kubelet"].MountPropagation,
		"the driver's bind mounts into pods' volume directories reach the node")
	require.Contains(t, mounts, "/data/host/var/hpvolumes", "the pool is where it is on the node")
}
