package ipamcontroller

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ipamv1alpha1 "github.com/virtflow/virtflow/api/ipamclaims/v1alpha1"
)

var vmKey = types.NamespacedName{Namespace: testNS, Name: testVM}

func reconcileVMI(t *testing.T, c client.Client) error {
	t.Helper()
	_, err := (&VMIReconciler{Client: c}).Reconcile(context.Background(), ctrl.Request{NamespacedName: vmKey})
	return err
}

func claims(t *testing.T, c client.Client) map[string]ipamv1alpha1.IPAMClaim {
	t.Helper()
	list := &ipamv1alpha1.IPAMClaimList{}
	require.NoError(t, c.List(context.Background(), list))
	out := map[string]ipamv1alpha1.IPAMClaim{}
	for _, cl := range list.Items {
		out[cl.Name] = cl
	}
	return out
}

func existingClaim(name string, owner types.UID) *ipamv1alpha1.IPAMClaim {
	return &ipamv1alpha1.IPAMClaim{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: name,
		Labels: map[string]string{kubevirtv1.VirtualMachineLabel: testVM}, Finalizers: []string{Finalizer},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine", Name: testVM, UID: owner}}}}
}

func TestAVMIOnANetworkKeepingItsIPsGetsAClaimOwnedByItsVM(t *testing.T) {
	c := newClient(t, newVM(), newVMI(), persistentNAD())
	require.NoError(t, reconcileVMI(t, c))
	require.NoError(t, reconcileVMI(t, c), "a second pass finds its own claim")
	got := claims(t, c)
	require.Len(t, got, 1)
	claim := got["vm1.randomnet"]
	assert.Equal(t, "goodnet", claim.Spec.Network, "the CNI network's name, as the IPAM plugin knows it")
	assert.Equal(t, []string{Finalizer}, claim.Finalizers)
	assert.Equal(t, map[string]string{"kubevirt.io/vm": testVM}, claim.Labels)
	require.Len(t, claim.OwnerReferences, 1)
	ref := claim.OwnerReferences[0]
	assert.Equal(t, metav1.OwnerReference{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine", Name: testVM, UID: "vm-uid"},
		metav1.OwnerReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID})
	assert.True(t, *ref.Controller && *ref.BlockOwnerDeletion)
}

func TestAVMIWithoutVMOwnsItsClaim(t *testing.T) {
	c := newClient(t, newVMI(), persistentNAD())
	require.NoError(t, reconcileVMI(t, c))
	ref := claims(t, c)["vm1.randomnet"].OwnerReferences[0]
	assert.Equal(t, "VirtualMachineInstance", ref.Kind)
	assert.Equal(t, types.UID("vmi-uid"), ref.UID)
}

func TestOnlyNetworksThatKeepTheirIPsGetClaims(t *testing.T) {
	c := newClient(t, newVM(), newVMI(), nad(testNAD, `{"name": "goodnet"}`))
	require.NoError(t, reconcileVMI(t, c))
	assert.Empty(t, claims(t, c))
}

func TestThePodNetworkGetsAClaimWhenTheNamespacesPrimaryNetworkKeepsItsIPs(t *testing.T) {
	c := newClient(t, newVM(), newVMI(), primaryNAD(), persistentNAD())
	require.NoError(t, reconcileVMI(t, c))
	got := claims(t, c)
	assert.ElementsMatch(t, []string{"vm1.podnet", "vm1.randomnet"}, keys(got))
	assert.Equal(t, "primarynet", got["vm1.podnet"].Spec.Network)
}

func TestAMissingNetworkDefinitionIsRetried(t *testing.T) {
	c := newClient(t, newVM(), newVMI())
	assert.ErrorContains(t, reconcileVMI(t, c), `"supadupanet" not found`)
	assert.Empty(t, claims(t, c))
}

func TestALeakedClaimOfAnotherOwnerIsRefused(t *testing.T) {
	c := newClient(t, newVM(), newVMI(), persistentNAD(), existingClaim("vm1.randomnet", "someone-else"))
	assert.EqualError(t, reconcileVMI(t, c), `failed since it found an existing IPAMClaim for "vm1.randomnet"`)
}

func TestAStoppedVMKeepsItsClaims(t *testing.T) {
	c := newClient(t, newVM(), existingClaim("vm1.randomnet", "vm-uid"))
	require.NoError(t, reconcileVMI(t, c))
	assert.Equal(t, []string{Finalizer}, claims(t, c)["vm1.randomnet"].Finalizers)
}

func TestADeletedVMsClaimsAreReleasedOnceItsVMIIsGone(t *testing.T) {
	vm := newVM()
	vm.Finalizers, vm.DeletionTimestamp = []string{"kubevirt.io/virtualMachineControllerFinalize"}, ptr.To(metav1.Now())
	c := newClient(t, vm, existingClaim("vm1.randomnet", "vm-uid"))
	require.NoError(t, reconcileVMI(t, c))
	assert.Empty(t, claims(t, c)["vm1.randomnet"].Finalizers)
}

func TestAVMLessVMIsClaimsAreReleasedOnceItsLauncherIsGone(t *testing.T) {
	vmi := newVMI()
	vmi.Finalizers, vmi.DeletionTimestamp = []string{"foregroundDeletion"}, ptr.To(metav1.Now())
	vmi.Status.ActivePods = map[types.UID]string{"pod-uid": "node-1"}
	c := newClient(t, vmi, persistentNAD(), existingClaim("vm1.randomnet", "vmi-uid"))
	require.NoError(t, reconcileVMI(t, c))
	assert.Equal(t, []string{Finalizer}, claims(t, c)["vm1.randomnet"].Finalizers, "its launcher still runs")

	c = newClient(t, existingClaim("vm1.randomnet", "vmi-uid"))
	require.NoError(t, reconcileVMI(t, c))
	assert.Empty(t, claims(t, c)["vm1.randomnet"].Finalizers)
}

func reconcileVM(t *testing.T, c client.Client) {
	t.Helper()
	_, err := (&VMReconciler{Client: c}).Reconcile(context.Background(), ctrl.Request{NamespacedName: vmKey})
	require.NoError(t, err)
}

func TestTheVMReconcilerReleasesClaimsWhenTheVMGoes(t *testing.T) {
	deleting := newVM()
	deleting.Finalizers, deleting.DeletionTimestamp = []string{"kubevirt.io/virtualMachineControllerFinalize"}, ptr.To(metav1.Now())
	cases := []struct {
		name     string
		objs     []client.Object
		released bool
	}{
		{"the VM lives", []client.Object{newVM()}, false},
		{"the VM is being deleted and its VMI runs", []client.Object{deleting, newVMI()}, false},
		{"the VM is being deleted and its VMI is gone", []client.Object{deleting}, true},
		{"the VM is gone", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			other := existingClaim("vm2.randomnet", "vm2-uid")
			other.Labels[kubevirtv1.VirtualMachineLabel] = "vm2"
			c := newClient(t, append(tc.objs, existingClaim("vm1.randomnet", "vm-uid"), other)...)
			reconcileVM(t, c)
			got := claims(t, c)
			assert.Equal(t, tc.released, len(got["vm1.randomnet"].Finalizers) == 0)
			assert.Equal(t, []string{Finalizer}, got["vm2.randomnet"].Finalizers, "another VM's claim is kept")
		})
	}
}

func TestAClaimMapsToItsOwnerOfEachKind(t *testing.T) {
	claim := existingClaim("vm1.randomnet", "vm-uid")
	want := []ctrl.Request{{NamespacedName: vmKey}}
	assert.Equal(t, want, claimOwner("VirtualMachine")(context.Background(), claim))
	assert.Empty(t, claimOwner("VirtualMachineInstance")(context.Background(), claim))
}

func TestClaimNamesAreUpstreams(t *testing.T) {
	assert.Equal(t, "vm1.podnet", ClaimName("vm1", "podnet"))
	assert.Equal(t, "my.vm.net-1", ClaimName("My_VM", "net-1"), "what a name may not hold splits labels")
	assert.Len(t, ClaimName(strings.Repeat("a", 300), "n"), 253)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
