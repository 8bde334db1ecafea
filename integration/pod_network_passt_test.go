//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/operands"
)

// passtGateOn is HCO's documented way to turn on a KubeVirt gate it does
// not expose.
const passtGateOn = `[{"op":"add","path":"/spec/configuration/developerConfiguration/featureGates/-","value":"PasstBinding"}]`

// TestAPasstGuestServesHTTPOnceTheGateIsOnThroughTheHyperConverged: a
// passtBinding interface is refused with upstream's message while its gate
// is off; HCO's jsonpatch annotation turns the gate on (and taints the
// configuration) and virt-api follows without a restart; the guest then
// gets the pod's address from the launcher's passt and answers on it.
func TestAPasstGuestServesHTTPOnceTheGateIsOnThroughTheHyperConverged(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	vm := testGuestVM("passt", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	spec := &vm.Spec.Template.Spec
	spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{{Name: "default", Ports: []kubevirtv1.Port{{Port: 80}},
		InterfaceBindingMethod: kubevirtv1.InterfaceBindingMethod{PasstBinding: &kubevirtv1.InterfacePasstBinding{}}}}
	spec.Networks = []kubevirtv1.Network{{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}
	err := n.c.Create(ctx, vm.DeepCopy(), crclient.DryRunAll)
	require.ErrorContains(t, err, "PasstBinding feature gate is not enabled")

	setHCOAnnotation(t, n.c, operands.JSONPatchKubeVirtAnnotation, passtGateOn)
	t.Cleanup(func() { setHCOAnnotation(t, n.c, operands.JSONPatchKubeVirtAnnotation, "") })
	require.Eventually(t, func() bool { return n.c.Create(ctx, vm.DeepCopy(), crclient.DryRunAll) == nil },
		time.Minute, time.Second, "virt-api follows the KubeVirt CR's gates")
	hc := waitAvailable(t, n.c, time.Minute)
	require.True(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionTaintedConfiguration))

	require.NoError(t, n.c.Create(ctx, vm))
	vmi := runningVMI(t, n.c, crclient.ObjectKeyFromObject(vm))
	ip := launcherPodOf(t, n.c, vmi).Status.PodIP
	require.True(t, strings.HasPrefix(httpGet(t, "http://"+ip+"/"), "VIRTFLOW-GUEST-HTTP "),
		"passt carries the pod's port 80 to the guest")
	require.Eventually(t, func() bool {
		got := &kubevirtv1.VirtualMachineInstance{}
		return n.c.Get(ctx, crclient.ObjectKeyFromObject(vmi), got) == nil && len(got.Status.Interfaces) == 1 &&
			got.Status.Interfaces[0].IP == ip && got.Status.Interfaces[0].PodInterfaceName == "eth0"
	}, time.Minute, time.Second, "the guest holds the pod's address")
	deleteVM(t, n.c, vm)
}

// setHCOAnnotation sets (or, empty, removes) an annotation of the default
// HyperConverged.
func setHCOAnnotation(t *testing.T, c crclient.Client, key, value string) {
	t.Helper()
	hc := &hcov1beta1.HyperConverged{}
	require.NoError(t, c.Get(context.Background(), crclient.ObjectKey{Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged"}, hc))
	before := hc.DeepCopy()
	if hc.Annotations == nil {
		hc.Annotations = map[string]string{}
	}
	hc.Annotations[key] = value
	if value == "" {
		delete(hc.Annotations, key)
	}
	require.NoError(t, c.Patch(context.Background(), hc, crclient.MergeFrom(before)))
}
