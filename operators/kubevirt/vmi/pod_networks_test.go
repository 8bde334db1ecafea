package vmi

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/wire/launcherpod"
)

func onBridgeNetwork(vmi *kubevirtv1.VirtualMachineInstance) *kubevirtv1.VirtualMachineInstance {
	vmi.Spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "br", MacAddress: "02:00:00:aa:bb:cc",
		InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{Bridge: &kubevirtv1.InterfaceBridge{}}}}
	vmi.Spec.Networks = []kubevirtv1.Network{{Name: "br", NetworkSource: kubevirtv1.NetworkSource{
		Multus: &kubevirtv1.MultusNetwork{NetworkName: "br1"}}}}
	return vmi
}

func TestAVMIOnAMissingNetworkWaitsSayingWhy(t *testing.T) {
	r, c, req := setup(t, onBridgeNetwork(newVMI()))
	res, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.NotZero(t, res.RequeueAfter, "the definition may come")
	require.Empty(t, pods(t, c))
	v := get(t, c, req)
	require.Equal(t, kubevirtv1.Pending, v.Status.Phase)
	require.Equal(t, "failed to locate network attachment definition ns/br1", v.Status.Conditions[0].Message)
}

func TestTheLauncherPodAsksMultusForTheNetworkAndItsDevice(t *testing.T) {
	nad := &unstructured.Unstructured{}
	nad.SetGroupVersionKind(NADKind)
	nad.SetNamespace("ns")
	nad.SetName("br1")
	nad.SetAnnotations(map[string]string{ResourceNameAnnotation: "bridge.network.kubevirt.io/br1"})
	r, c, req := setup(t, onBridgeNetwork(newVMI()), nad)
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	ps := pods(t, c)
	require.Len(t, ps, 1)
	var elems []map[string]string
	require.NoError(t, json.Unmarshal([]byte(ps[0].Annotations[NetworksAnnotation]), &elems))
	require.Equal(t, []map[string]string{{"name": "br1", "namespace": "ns", "interface": launcherpod.SecondaryInterface("br"), "mac": "02:00:00:aa:bb:cc"}}, elems)
	res := corev1.ResourceName("bridge.network.kubevirt.io/br1")
	require.Equal(t, "1", ps[0].Spec.Containers[0].Resources.Limits.Name(res, "").String())
	require.Len(t, launcherpod.SecondaryInterface("br"), 14, "fits an interface name with -nic")
}
