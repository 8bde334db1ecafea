package vmistatus

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

func TestLiveMigratable(t *testing.T) {
	claims := map[string][]corev1.PersistentVolumeAccessMode{
		"shared": {corev1.ReadWriteMany}, "local": {corev1.ReadWriteOnce},
	}
	modes := func(c string) ([]corev1.PersistentVolumeAccessMode, error) {
		if m, ok := claims[c]; ok {
			return m, nil
		}
		return nil, errors.New("not found")
	}
	pvc := func(name string) kubevirtv1.Volume {
		v := kubevirtv1.Volume{Name: name, VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{}}}
		v.PersistentVolumeClaim.ClaimName = name
		return v
	}
	podNet := []kubevirtv1.Network{{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}
	masq := kubevirtv1.Interface{Name: "default", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Masquerade: &kubevirtv1.InterfaceMasquerade{}}}
	bridge := kubevirtv1.Interface{Name: "default", InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}}
	cases := []struct {
		name        string
		volumes     []kubevirtv1.Volume
		ifaces      []kubevirtv1.Interface
		annotations map[string]string
		reason      string
		message     string
	}{
		{name: "container disk and masquerade", volumes: []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{}}}}, ifaces: []kubevirtv1.Interface{masq}},
		{name: "shared claim", volumes: []kubevirtv1.Volume{pvc("shared")}},
		{name: "local claim", volumes: []kubevirtv1.Volume{pvc("local")}, reason: "DisksNotLiveMigratable",
			message: "cannot migrate VMI: PVC local is not shared, live migration requires that all PVCs must be shared (using ReadWriteMany access mode)"},
		{name: "missing claim", volumes: []kubevirtv1.Volume{pvc("gone")}, reason: "DisksNotLiveMigratable", message: "cannot migrate VMI: PVC gone: not found"},
		{name: "bridge on pod network", ifaces: []kubevirtv1.Interface{bridge}, reason: "InterfaceNotLiveMigratable",
			message: "cannot migrate VMI which does not use masquerade or a migratable plugin to connect to the pod network"},
		{name: "bridge allowed by annotation", ifaces: []kubevirtv1.Interface{bridge},
			annotations: map[string]string{kubevirtv1.AllowPodBridgeNetworkLiveMigrationAnnotation: ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Annotations: c.annotations},
				Spec: kubevirtv1.VirtualMachineInstanceSpec{Volumes: c.volumes, Networks: podNet}}
			v.Spec.Domain.Devices.Interfaces = c.ifaces
			cond := LiveMigratable(v, modes)
			require.Equal(t, kubevirtv1.VirtualMachineInstanceIsMigratable, cond.Type)
			if c.reason == "" {
				require.Equal(t, corev1.ConditionTrue, cond.Status)
				return
			}
			require.Equal(t, corev1.ConditionFalse, cond.Status)
			require.Equal(t, c.reason, string(cond.Reason))
			require.Equal(t, c.message, cond.Message)
		})
	}
}
