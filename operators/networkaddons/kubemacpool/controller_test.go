package kubemacpool

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func vmClient(t *testing.T, vms ...*kubevirtv1.VirtualMachine) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, kubevirtv1.AddToScheme(scheme))
	b := fake.NewClientBuilder().WithScheme(scheme)
	for _, vm := range vms {
		b = b.WithObjects(vm)
	}
	return b.Build()
}

func reconcileVM(t *testing.T, c *VMController, ns, name string) ctrl.Result {
	t.Helper()
	res, err := c.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
	require.NoError(t, err)
	return res
}

func TestAStoredVMCommitsItsReservationAndADeletedOneFreesIt(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	at := time.Now()
	mutated, err := p.MutateVM(nil, testVM("default", "a", podIface("default", "")), at)
	require.NoError(t, err)
	mac := macs(mutated)[0]
	rebuilt := &atomic.Bool{}
	rebuilt.Store(true)
	c := &VMController{Client: vmClient(t, mutated), Pool: p, Rebuilt: rebuilt}
	reconcileVM(t, c, "default", "a")
	_, _, pending, ok := p.Owner(mac)
	require.True(t, ok)
	assert.False(t, pending, "committed once stored")

	c.Client = vmClient(t)
	reconcileVM(t, c, "default", "a")
	_, _, _, ok = p.Owner(mac)
	assert.False(t, ok, "freed once the VM is gone")
}

func TestNothingSettlesBeforeTheRebuild(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	mutated, err := p.MutateVM(nil, testVM("default", "a", podIface("default", "")), time.Now())
	require.NoError(t, err)
	c := &VMController{Client: vmClient(t), Pool: p, Rebuilt: &atomic.Bool{}}
	res := reconcileVM(t, c, "default", "a")
	assert.NotZero(t, res.RequeueAfter)
	_, _, _, ok := p.Owner(macs(mutated)[0])
	assert.True(t, ok, "not released while the pool is not rebuilt")
}

func TestStaleReservationsExpireAgainstTheVMAsStored(t *testing.T) {
	p := newTestPool(t, "02:00:00:00:00:00", "02:00:00:00:00:0f")
	at := time.Now().Add(-time.Hour)
	kept, err := p.MutateVM(nil, testVM("default", "kept", podIface("default", "")), at)
	require.NoError(t, err)
	lost, err := p.MutateVM(nil, testVM("default", "lost", podIface("default", "")), at)
	require.NoError(t, err)
	freed, err := p.ExpireStale(time.Now(), LookupVMs(context.Background(), vmClient(t, kept)))
	require.NoError(t, err)
	assert.Equal(t, 1, freed)
	_, _, pending, ok := p.Owner(macs(kept)[0])
	assert.True(t, ok && !pending, "the stored VM's MAC is allocated")
	_, _, _, ok = p.Owner(macs(lost)[0])
	assert.False(t, ok, "the MAC of a VM never stored is freed")
}
