//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
	nacv1 "github.com/virtflow/virtflow/api/networkaddonsoperator/v1"
	"github.com/virtflow/virtflow/operators/networkaddons/ipamcontroller"
	"github.com/virtflow/virtflow/operators/networkaddons/networkaddonsconfig"
)

// TestAVMOnANetworkKeepingItsIPsHoldsAClaim: a VM on a definition allowing
// persistent IPs gets the IPAMClaim <vm>.<network>, owned by it; its
// launcher pod names the claim to Multus; deleting the VM deletes it. The
// definition's bridge is on no node, so the pod stays Pending and leaves
// nothing on the host: the claim and the annotation are what is checked.
func TestAVMOnANetworkKeepingItsIPsHoldsAClaim(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	waitIpamController(t, n)
	ns := n.namespace(t)
	nad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
		"metadata": map[string]any{"namespace": ns, "name": "persistent-net",
			"annotations": map[string]any{"k8s.v1.cni.cncf.io/resourceName": "bridge.network.kubevirt.io/br-ipam-none"}},
		"spec": map[string]any{"config": `{"cniVersion":"0.3.1","name":"persistent-net","type":"cnv-bridge","bridge":"br-ipam-none","allowPersistentIPs":true}`},
	}}
	require.NoError(t, n.c.Create(ctx, nad))
	vm := testGuestVM("keeper", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	onSecondary(vm, "persistent-net")
	require.NoError(t, n.c.Create(ctx, vm))
	defer deleteVM(t, n.c, vm)

	claimKey := types.NamespacedName{Namespace: ns, Name: "keeper.br"}
	claim := &ipamv1alpha1.IPAMClaim{}
	require.Eventually(t, func() bool { return n.c.Get(ctx, claimKey, claim) == nil }, 2*time.Minute, time.Second, "the VM's claim is made")
	require.NoError(t, n.c.Get(ctx, crclient.ObjectKeyFromObject(vm), vm))
	require.Len(t, claim.OwnerReferences, 1)
	require.Equal(t, "VirtualMachine", claim.OwnerReferences[0].Kind)
	require.Equal(t, vm.UID, claim.OwnerReferences[0].UID)
	require.Equal(t, []string{ipamcontroller.Finalizer}, claim.Finalizers)
	require.Equal(t, "persistent-net", claim.Spec.Network)

	var ref string
	require.Eventually(t, func() bool {
		ref = claimReference(ctx, n, ns, "keeper", "persistent-net")
		return ref != ""
	}, 2*time.Minute, time.Second, "the launcher pod names a claim")
	require.Equal(t, claimKey.Name, ref)

	deleteVM(t, n.c, vm)
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(n.c.Get(ctx, claimKey, &ipamv1alpha1.IPAMClaim{}))
	}, time.Minute, time.Second, "the claim goes with its VM")
}

// waitIpamController waits for the controller HCO's NetworkAddonsConfig
// asks for, and for the NetworkAddonsConfig to report it ready.
func waitIpamController(t *testing.T, n *upRun) {
	t.Helper()
	ctx := context.Background()
	key := types.NamespacedName{Namespace: "kubevirt-hyperconverged", Name: networkaddonsconfig.IpamControllerManager}
	require.Eventually(t, func() bool {
		d := &appsv1.Deployment{}
		return n.c.Get(ctx, key, d) == nil && d.Status.ReadyReplicas > 0
	}, 3*time.Minute, time.Second, "kubevirt-ipam-controller runs")
	require.Eventually(t, func() bool {
		nac := &nacv1.NetworkAddonsConfig{}
		if n.c.Get(ctx, types.NamespacedName{Name: "cluster"}, nac) != nil {
			return false
		}
		for _, c := range nac.Status.Conditions {
			if c.Type == "Available" {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	}, 2*time.Minute, time.Second, "the NetworkAddonsConfig is Available with it")
}

// claimReference is the ipam-claim-reference of the launcher pod's
// element for nad, empty while there is none.
func claimReference(ctx context.Context, n *upRun, ns, vm, nad string) string {
	pods := &corev1.PodList{}
	if n.c.List(ctx, pods, crclient.InNamespace(ns), crclient.MatchingLabels{"vm.kubevirt.io/name": vm}) != nil || len(pods.Items) == 0 {
		return ""
	}
	var elems []map[string]any
	if json.Unmarshal([]byte(pods.Items[0].Annotations[ipamcontroller.NetworksAnnotation]), &elems) != nil {
		return ""
	}
	for _, e := range elems {
		if e["name"] == nad {
			ref, _ := e["ipam-claim-reference"].(string)
			return ref
		}
	}
	return ""
}
