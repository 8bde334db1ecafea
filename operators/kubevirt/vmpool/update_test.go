package vmpool

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// rollout is a pool at generation 2 whose VMs were built at generation 1
// (old) and a copy of generation 1 for the revision.
func rollout(replicas int32) (old, pool *poolv1.VirtualMachinePool) {
	old = newPool(replicas)
	pool = old.DeepCopy()
	pool.Generation = 2
	pool.Spec.VirtualMachineTemplate.Spec.Template.Spec.Domain.CPU.Cores = 2
	return old, pool
}

func runningVMI(vm *kubevirtv1.VirtualMachine, revision string) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: vm.Name, Labels: map[string]string{kubevirtv1.VirtualMachinePoolRevisionName: revision}},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running, Conditions: []kubevirtv1.VirtualMachineInstanceCondition{
			{Type: kubevirtv1.VirtualMachineInstanceReady, Status: corev1.ConditionTrue}}},
	}
}

func (e *env) vmiExists(t *testing.T, name string) bool {
	err := e.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &kubevirtv1.VirtualMachineInstance{})
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

func TestOutdatedVMsGetTheNewTemplateAndKeepTheirFirmwareIdentity(t *testing.T) {
	old, pool := rollout(1)
	pool.Spec.UpdateStrategy = &poolv1.VirtualMachinePoolUpdateStrategy{Opportunistic: &poolv1.VirtualMachineOpportunisticUpdateStrategy{}}
	vm := poolVM(old, 0)
	vm.Labels["stale"] = "yes"
	vm.Spec.Template.Spec.Domain.Firmware = &kubevirtv1.Firmware{UUID: "uuid-0", Serial: "serial-0"}
	vmi := runningVMI(vm, "pool-1")
	e := setup(t, pool, vm, revisionOf(t, old), vmi)
	e.reconcile(t)

	got := e.vm(t, "pool-0")
	require.Equal(t, map[string]string{"app": "web", kubevirtv1.VirtualMachinePoolRevisionName: "pool-2"}, got.Labels)
	require.Equal(t, uint32(2), got.Spec.Template.Spec.Domain.CPU.Cores)
	require.Equal(t, types.UID("uuid-0"), got.Spec.Template.Spec.Domain.Firmware.UUID)
	require.Equal(t, "serial-0", got.Spec.Template.Spec.Domain.Firmware.Serial)
	require.Equal(t, "pool-2", got.Spec.Template.ObjectMeta.Labels[kubevirtv1.VirtualMachinePoolRevisionName])
	require.Contains(t, e.drain(), "Normal SuccessfulUpdate Updated VM ns/pool-0")
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "pool-2"}, &appsv1.ControllerRevision{}))

	e.reconcile(t)
	require.True(t, e.vmiExists(t, "pool-0"), "an opportunistic update leaves the running VMI alone")
}

func TestProactiveUpdateRestartsOutdatedVMIsWithinMaxUnavailable(t *testing.T) {
	old, pool := rollout(3)
	one := intstr.FromInt32(1)
	pool.Spec.MaxUnavailable = &one
	objs := []client.Object{pool, revisionOf(t, old), revisionOf(t, pool)}
	for i := range 3 {
		vm := ready(poolVM(pool, i))
		objs = append(objs, vm, runningVMI(vm, "pool-1"))
	}
	e := setup(t, objs...)
	res := e.reconcile(t)
	require.Equal(t, retryDelay, res.RequeueAfter)
	gone := 0
	for i := range 3 {
		if !e.vmiExists(t, vmName("pool", i)) {
			gone++
		}
	}
	require.Equal(t, 1, gone, "one VMI restarted, the others wait for the budget")
	require.Contains(t, e.drain(), "Normal SuccessfulDelete Successfully updated resource ns/"+firstGone(t, e))
}

func firstGone(t *testing.T, e *env) string {
	for i := range 3 {
		if !e.vmiExists(t, vmName("pool", i)) {
			return vmName("pool", i)
		}
	}
	t.Fatal("no VMI was restarted")
	return ""
}

func TestUnchangedVMITemplateOnlyRelabelsTheVMI(t *testing.T) {
	old := newPool(1)
	pool := old.DeepCopy()
	pool.Generation = 2
	pool.Spec.VirtualMachineTemplate.ObjectMeta.Annotations["note"] = "y"
	vm := ready(poolVM(pool, 0))
	// The fake client cannot write VMIs (it panics on their uint64
	// fields), so the patch is captured instead of applied.
	var patched []string
	funcs := interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
		if _, ok := obj.(*kubevirtv1.VirtualMachineInstance); !ok {
			return c.Patch(ctx, obj, p, opts...)
		}
		data, err := p.Data(obj)
		require.NoError(t, err)
		patched = append(patched, obj.GetName()+" "+string(p.Type())+" "+string(data))
		return nil
	}}
	e := setupWith(t, funcs, pool, vm, runningVMI(vm, "pool-1"), revisionOf(t, old), revisionOf(t, pool))
	e.reconcile(t)
	require.Equal(t, []string{`pool-0 application/merge-patch+json {"metadata":{"labels":{"kubevirt.io/vm-pool-revision-name":"pool-2"}}}`}, patched)
	require.True(t, e.vmiExists(t, "pool-0"), "no restart")
}

func TestChangedDataVolumeTemplatesDeleteTheVM(t *testing.T) {
	old := newPool(1)
	pool := old.DeepCopy()
	pool.Generation = 2
	pool.Spec.VirtualMachineTemplate.Spec.DataVolumeTemplates = []kubevirtv1.DataVolumeTemplateSpec{{
		ObjectMeta: metav1.ObjectMeta{Name: "root"}, Spec: cdiv1.DataVolumeSpec{Source: &cdiv1.DataVolumeSource{Blank: &cdiv1.DataVolumeBlankImage{}}}}}
	vm := ready(poolVM(pool, 0))
	e := setup(t, pool, vm, runningVMI(vm, "pool-1"), revisionOf(t, old), revisionOf(t, pool))
	e.reconcile(t)
	require.NotNil(t, e.vm(t, "pool-0").DeletionTimestamp, "the VM goes, held by the pool finalizer until the count is right")
}

func TestUnmanagedUpdateLeavesOutdatedVMsAlone(t *testing.T) {
	old, pool := rollout(1)
	pool.Spec.UpdateStrategy = &poolv1.VirtualMachinePoolUpdateStrategy{Unmanaged: &poolv1.VirtualMachinePoolUnmanagedStrategy{}}
	e := setup(t, pool, poolVM(old, 0), revisionOf(t, old))
	e.reconcile(t)
	require.Equal(t, "pool-1", e.vm(t, "pool-0").Labels[kubevirtv1.VirtualMachinePoolRevisionName])
}

func TestUnusedRevisionsArePrunedOnceStable(t *testing.T) {
	old, pool := rollout(1)
	vm := ready(poolVM(pool, 0))
	foreign := revisionOf(t, old)
	foreign.Name, foreign.OwnerReferences = "someone-else", nil
	e := setup(t, pool, vm, runningVMI(vm, "pool-2"), revisionOf(t, old), revisionOf(t, pool), foreign)
	e.reconcile(t)
	list := &appsv1.ControllerRevisionList{}
	require.NoError(t, e.c.List(context.Background(), list, client.InNamespace(ns)))
	var names []string
	for _, cr := range list.Items {
		names = append(names, cr.Name)
	}
	require.ElementsMatch(t, []string{"pool-2", "someone-else"}, names)
}

func TestMaxUnavailable(t *testing.T) {
	for _, c := range []struct {
		mu   *intstr.IntOrString
		repl int32
		want int
	}{
		{nil, 4, 4}, {ptr(intstr.FromString("50%")), 5, 2}, {ptr(intstr.FromString("10%")), 3, 1},
		{ptr(intstr.FromInt32(2)), 10, 2}, {ptr(intstr.FromInt32(0)), 10, 1},
	} {
		pool := newPool(c.repl)
		pool.Spec.MaxUnavailable = c.mu
		got, err := maxUnavailable(pool)
		require.NoError(t, err)
		require.Equal(t, c.want, got)
	}
	pool := newPool(1)
	pool.Spec.MaxUnavailable = ptr(intstr.FromString("x%"))
	_, err := maxUnavailable(pool)
	require.ErrorContains(t, err, "invalid maxUnavailable percentage")
}

func ptr[T any](v T) *T { return &v }

func TestAutohealReplacesOnlyThePoolsFailingVMs(t *testing.T) {
	pool := newPool(3)
	pool.Spec.Autohealing = &poolv1.VirtualMachinePoolAutohealingStrategy{}
	crashing := poolVM(pool, 0)
	crashing.Status.StartFailure = &kubevirtv1.VirtualMachineStartFailure{ConsecutiveFailCount: 3}
	stuck := poolVM(pool, 1)
	stuck.Status.PrintableStatus = kubevirtv1.VirtualMachineStatusErrImagePull
	stuck.Status.Conditions = []kubevirtv1.VirtualMachineCondition{{Type: kubevirtv1.VirtualMachineReady,
		Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(time.Now().Add(-time.Minute))}}
	outsider := &kubevirtv1.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "outsider", Labels: map[string]string{"app": "web"}},
		Status: kubevirtv1.VirtualMachineStatus{StartFailure: &kubevirtv1.VirtualMachineStartFailure{ConsecutiveFailCount: 9}}}
	e := setup(t, pool, crashing, stuck, poolVM(pool, 2), outsider, revisionOf(t, pool))
	res := e.reconcile(t)
	require.Equal(t, []string{"outsider", "pool-1", "pool-2"}, e.vmNames(t))
	require.InDelta(t, 4*time.Minute, res.RequeueAfter, float64(5*time.Second), "the stuck VM is due after five minutes")

	e.reconcile(t)
	require.Equal(t, []string{"outsider", "pool-0", "pool-1", "pool-2"}, e.vmNames(t), "scale-out replaces it")
}

func TestPausedPoolNeitherScalesNorUpdates(t *testing.T) {
	pool := newPool(2)
	pool.Spec.Paused = true
	e := setup(t, pool)
	e.reconcile(t)
	require.Empty(t, e.vmNames(t))
	p := e.pool(t)
	require.Len(t, p.Status.Conditions, 1)
	c := p.Status.Conditions[0]
	require.Equal(t, poolv1.VirtualMachinePoolReplicaPaused, c.Type)
	require.Equal(t, "SuccessfulPaused", c.Reason)
	require.Equal(t, "Pool controller is paused", c.Message)
	require.Contains(t, e.drain(), "Normal SuccessfulPaused Pool is paused")

	p.Spec.Paused = false
	require.NoError(t, e.c.Update(context.Background(), p))
	e.reconcile(t)
	require.Empty(t, e.pool(t).Status.Conditions)
	require.Contains(t, e.drain(), "Normal SuccessfulResume Pool is unpaused")
	require.Len(t, e.vmNames(t), 2)
}

func TestDeletingThePoolLetsItsVMsGo(t *testing.T) {
	pool := newPool(2)
	pool.Finalizers = []string{poolv1.VirtualMachinePoolControllerFinalizer}
	now := metav1.Now()
	pool.DeletionTimestamp = &now
	foreign := poolVM(pool, 1)
	foreign.OwnerReferences[0].UID = "another-pool"
	e := setup(t, pool, poolVM(pool, 0), foreign)
	e.reconcile(t)
	require.Empty(t, e.vm(t, "pool-0").Finalizers)
	require.NotEmpty(t, e.vm(t, "pool-1").Finalizers, "another pool's VM is not touched")
	err := e.c.Get(context.Background(), poolKey.NamespacedName, &poolv1.VirtualMachinePool{})
	require.True(t, apierrors.IsNotFound(err), "the pool's finalizer is gone with it")
}

func TestSelectorNotMatchingTheTemplateLeavesThePoolAlone(t *testing.T) {
	pool := newPool(2)
	pool.Spec.Selector.MatchLabels["app"] = "db"
	e := setup(t, pool)
	e.reconcile(t)
	require.Empty(t, e.vmNames(t))
	require.Empty(t, e.pool(t).Finalizers)
}

func TestReadyReplicasCountReadyVMs(t *testing.T) {
	pool := newPool(2)
	e := setup(t, pool, ready(poolVM(pool, 0)), poolVM(pool, 1), revisionOf(t, pool))
	e.reconcile(t)
	p := e.pool(t)
	require.Equal(t, int32(2), p.Status.Replicas)
	require.Equal(t, int32(1), p.Status.ReadyReplicas)
}
