package vmpool

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestScaleOutCreatesIndexedVMsFromTheTemplate(t *testing.T) {
	e := setup(t, newPool(3))
	e.reconcile(t)
	require.Equal(t, []string{"pool-0", "pool-1", "pool-2"}, e.vmNames(t))

	vm := e.vm(t, "pool-1")
	require.Equal(t, map[string]string{"app": "web", kubevirtv1.VirtualMachinePoolRevisionName: "pool-1"}, vm.Labels)
	require.Equal(t, map[string]string{"note": "x"}, vm.Annotations)
	require.Equal(t, "pool-1", vm.Spec.Template.ObjectMeta.Labels[kubevirtv1.VirtualMachinePoolRevisionName])
	require.Equal(t, []string{poolv1.VirtualMachinePoolControllerFinalizer}, vm.Finalizers)
	ref := metav1.GetControllerOf(vm)
	require.NotNil(t, ref)
	require.Equal(t, "pool.kubevirt.io/v1beta1", ref.APIVersion)
	require.Equal(t, "VirtualMachinePool", ref.Kind)
	require.Equal(t, types.UID("pool-uid"), ref.UID)
	require.True(t, *ref.BlockOwnerDeletion)

	cr := &appsv1.ControllerRevision{}
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "pool-1"}, cr))
	require.Equal(t, int64(1), cr.Revision)
	spec := &poolv1.VirtualMachinePoolSpec{}
	require.NoError(t, json.Unmarshal(cr.Data.Raw, spec))
	require.Equal(t, int32(3), *spec.Replicas)

	p := e.pool(t)
	require.Contains(t, p.Finalizers, poolv1.VirtualMachinePoolControllerFinalizer)
	require.Equal(t, "app=web", p.Status.LabelSelector)
	require.Contains(t, e.drain(), "Normal SuccessfulCreate Created VM ns/pool-2")

	e.reconcile(t)
	p = e.pool(t)
	require.Equal(t, int32(3), p.Status.Replicas)
	require.Equal(t, int32(0), p.Status.ReadyReplicas)
}

func TestScaleOutFillsTheLowestFreeIndicesAndSkipsForeignNames(t *testing.T) {
	pool := newPool(3)
	foreign := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool-0"}}
	e := setup(t, pool, foreign, poolVM(pool, 2))
	e.reconcile(t)
	require.Equal(t, []string{"pool-0", "pool-1", "pool-2", "pool-3"}, e.vmNames(t))
	require.Nil(t, metav1.GetControllerOf(e.vm(t, "pool-0")), "the foreign VM is not adopted")
	require.NotNil(t, metav1.GetControllerOf(e.vm(t, "pool-3")))
}

func TestPoolFinalizerKeepsOtherFinalizers(t *testing.T) {
	pool := newPool(0)
	pool.Finalizers = []string{"example.com/keep"}
	e := setup(t, pool)
	e.reconcile(t)
	require.ElementsMatch(t, []string{"example.com/keep", poolv1.VirtualMachinePoolControllerFinalizer}, e.pool(t).Finalizers)
}

func TestScaleInFollowsTheSortPolicy(t *testing.T) {
	for policy, want := range map[poolv1.VirtualMachinePoolSortPolicy][]string{
		poolv1.VirtualMachinePoolSortPolicyDescendingOrder: {"pool-0"},
		poolv1.VirtualMachinePoolSortPolicyAscendingOrder:  {"pool-2"},
	} {
		t.Run(string(policy), func(t *testing.T) {
			pool := newPool(1)
			pool.Spec.ScaleInStrategy = sortPolicy(policy)
			e := setup(t, pool, poolVM(pool, 0), poolVM(pool, 1), poolVM(pool, 2))
			e.reconcile(t)
			require.Equal(t, want, e.vmNames(t))
			require.Contains(t, e.drain(), "Normal SuccessfulDelete Deleted VM ns/pool-1 with uid pool-1-uid from pool")
		})
	}
}

func TestScaleInByAgeAndRandomDeleteTheSurplus(t *testing.T) {
	pool := newPool(1)
	pool.Spec.ScaleInStrategy = sortPolicy(poolv1.VirtualMachinePoolSortPolicyNewest)
	old, young := poolVM(pool, 0), poolVM(pool, 1)
	old.CreationTimestamp = metav1.Unix(100, 0)
	young.CreationTimestamp = metav1.Unix(200, 0)
	e := setup(t, pool, old, young)
	e.reconcile(t)
	require.Equal(t, []string{"pool-0"}, e.vmNames(t))

	pool = newPool(1)
	e = setup(t, pool, poolVM(pool, 0), poolVM(pool, 1), poolVM(pool, 2))
	e.reconcile(t)
	require.Len(t, e.vmNames(t), 1)
}

func TestScaleInCountsVMsAlreadyBeingDeleted(t *testing.T) {
	pool := newPool(1)
	pool.Spec.ScaleInStrategy = sortPolicy(poolv1.VirtualMachinePoolSortPolicyAscendingOrder)
	e := setup(t, pool, deleting(poolVM(pool, 0)), poolVM(pool, 1), poolVM(pool, 2))
	e.reconcile(t)
	require.Equal(t, []string{"pool-2"}, e.vmNames(t), "ascending order deletes the lowest index first")
}

func TestScaleInWithMoreDeletingThanSurplusDeletesNothing(t *testing.T) {
	pool := newPool(2)
	e := setup(t, pool, deleting(poolVM(pool, 0)), deleting(poolVM(pool, 1)), poolVM(pool, 2))
	e.reconcile(t)
	require.Equal(t, []string{"pool-2"}, e.vmNames(t))
}

func TestScaleInSelectorsNarrowTheChoiceWithoutOverrunning(t *testing.T) {
	pool := newPool(0)
	pool.Spec.ScaleInStrategy = sortPolicy(poolv1.VirtualMachinePoolSortPolicyAscendingOrder)
	pool.Spec.ScaleInStrategy.Proactive.SelectionPolicy.Selectors = &poolv1.VirtualMachinePoolSelectors{
		NodeSelectorRequirementMatcher: &[]corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}},
	}
	inZone := poolVM(pool, 1)
	inZone.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
	e := setup(t, pool, poolVM(pool, 0), inZone, poolVM(pool, 2))
	e.reconcile(t)
	require.Equal(t, []string{"pool-0", "pool-2"}, e.vmNames(t))
}

func TestOpportunisticAndUnmanagedScaleInDeleteNothing(t *testing.T) {
	for name, st := range map[string]*poolv1.VirtualMachinePoolScaleInStrategy{
		"opportunistic": {Opportunistic: &poolv1.VirtualMachinePoolOpportunisticScaleInStrategy{}},
		"unmanaged":     {Unmanaged: &poolv1.VirtualMachinePoolUnmanagedStrategy{}},
	} {
		t.Run(name, func(t *testing.T) {
			pool := newPool(1)
			pool.Spec.ScaleInStrategy = st
			e := setup(t, pool, poolVM(pool, 0), poolVM(pool, 1))
			e.reconcile(t)
			require.Equal(t, []string{"pool-0", "pool-1"}, e.vmNames(t))
		})
	}
}

func TestDeletedVMIsLetGoThenReplacedAtTheLowestIndex(t *testing.T) {
	pool := newPool(2)
	e := setup(t, pool, deleting(poolVM(pool, 0)), poolVM(pool, 1))
	e.reconcile(t)
	require.Equal(t, []string{"pool-1"}, e.vmNames(t))
	e.reconcile(t)
	require.Equal(t, []string{"pool-0", "pool-1"}, e.vmNames(t))
}

func TestUnmanagedScaleInKeepsTheFinalizerOfADeletedVM(t *testing.T) {
	pool := newPool(2)
	pool.Spec.ScaleInStrategy = &poolv1.VirtualMachinePoolScaleInStrategy{Unmanaged: &poolv1.VirtualMachinePoolUnmanagedStrategy{}}
	e := setup(t, pool, deleting(poolVM(pool, 0)), poolVM(pool, 1))
	e.reconcile(t)
	require.NotNil(t, e.vm(t, "pool-0").DeletionTimestamp)
	require.Equal(t, int32(2), e.pool(t).Status.Replicas)
}

func TestStatePreservationFreesTheVMsClaims(t *testing.T) {
	pool := newPool(0)
	offline := poolv1.StatePreservationOffline
	pool.Spec.ScaleInStrategy = &poolv1.VirtualMachinePoolScaleInStrategy{Proactive: &poolv1.VirtualMachinePoolProactiveScaleInStrategy{StatePreservation: &offline}}
	pool.Spec.VirtualMachineTemplate.Spec.Template.Spec.Volumes = []kubevirtv1.Volume{{Name: "d",
		VolumeSource: kubevirtv1.VolumeSource{PersistentVolumeClaim: &kubevirtv1.PersistentVolumeClaimVolumeSource{
			PersistentVolumeClaimVolumeSource: corev1.PersistentVolumeClaimVolumeSource{ClaimName: "disk"}}}}}
	vm := poolVM(pool, 0)
	yes := true
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "other"}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "disk", OwnerReferences: []metav1.OwnerReference{
		other, {APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine", Name: vm.Name, UID: vm.UID, Controller: &yes}}}}
	e := setup(t, pool, vm, pvc)
	e.reconcile(t)
	require.Empty(t, e.vmNames(t))
	got := &corev1.PersistentVolumeClaim{}
	require.NoError(t, e.c.Get(context.Background(), client.ObjectKeyFromObject(pvc), got))
	require.Equal(t, []metav1.OwnerReference{other}, got.OwnerReferences)
}

func TestDetachedVMIsReleasedKeepingOtherFinalizers(t *testing.T) {
	pool := newPool(1)
	vm := poolVM(pool, 0)
	vm.Labels["app"] = "other"
	vm.Finalizers = append(vm.Finalizers, "example.com/keep")
	e := setup(t, pool, vm)
	e.reconcile(t)
	got := e.vm(t, "pool-0")
	require.Nil(t, metav1.GetControllerOf(got))
	require.Equal(t, []string{"example.com/keep"}, got.Finalizers)
	require.Equal(t, []string{"pool-0", "pool-1"}, e.vmNames(t), "a replacement is created under the next free name")
}

func TestFailedCreateSetsReplicaFailureUntilASyncSucceeds(t *testing.T) {
	fail := true
	funcs := interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if _, ok := obj.(*kubevirtv1.VirtualMachine); ok && fail {
			return errors.New("quota exceeded")
		}
		return c.Create(ctx, obj, opts...)
	}}
	e := setupWith(t, funcs, newPool(1))
	_, err := e.r.Reconcile(context.Background(), poolKey)
	require.ErrorContains(t, err, "error during scale out: quota exceeded")
	p := e.pool(t)
	require.Len(t, p.Status.Conditions, 1)
	c := p.Status.Conditions[0]
	require.Equal(t, poolv1.VirtualMachinePoolReplicaFailure, c.Type)
	require.Equal(t, corev1.ConditionTrue, c.Status)
	require.Equal(t, "FailedScaleOut", c.Reason)
	require.Equal(t, "error during scale out: quota exceeded", c.Message)
	events := e.drain()
	require.Contains(t, events, "Warning FailedCreate Error creating VM: quota exceeded")
	require.Contains(t, events, "Warning FailedScaleOut error during scale out: quota exceeded")

	fail = false
	e.reconcile(t)
	require.Empty(t, e.pool(t).Status.Conditions)
}
