//go:build integration

package integration

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// testGuestPool is a pool of test-guest VMs that always run; scale-in
// takes the highest index first so the test knows which VMs go.
func testGuestPool(ns, name string, replicas int32) *poolv1.VirtualMachinePool {
	vm := testGuestVM(name, kubevirtv1.RunStrategyAlways)
	selectLabels := map[string]string{"vmpool": name}
	vm.Spec.Template.ObjectMeta.Labels = map[string]string{"vmpool": name}
	descending := poolv1.VirtualMachinePoolSortPolicyDescendingOrder
	return &poolv1.VirtualMachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: poolv1.VirtualMachinePoolSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: selectLabels},
			VirtualMachineTemplate: &poolv1.VirtualMachineTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selectLabels},
				Spec:       vm.Spec,
			},
			ScaleInStrategy: &poolv1.VirtualMachinePoolScaleInStrategy{Proactive: &poolv1.VirtualMachinePoolProactiveScaleInStrategy{
				SelectionPolicy: &poolv1.VirtualMachinePoolSelectionPolicy{SortPolicy: &descending},
			}},
		},
	}
}

// poolVMNames lists the VMs in ns, those being deleted included.
func poolVMNames(c crclient.Client, ns string) []string {
	list := &kubevirtv1.VirtualMachineList{}
	if err := c.List(context.Background(), list, crclient.InNamespace(ns)); err != nil {
		return nil
	}
	var names []string
	for _, vm := range list.Items {
		names = append(names, vm.Name)
	}
	sort.Strings(names)
	return names
}

func requirePoolVMs(t *testing.T, c crclient.Client, ns string, want ...string) {
	t.Helper()
	require.Eventually(t, func() bool { return slices.Equal(poolVMNames(c, ns), want) },
		3*time.Minute, 200*time.Millisecond, "the pool's VMs are not %v", want)
}

// requireRunning waits for each VM's VMI to run, returning the VMs.
func requireRunning(t *testing.T, c crclient.Client, ns string, names ...string) map[string]*kubevirtv1.VirtualMachine {
	t.Helper()
	vms := map[string]*kubevirtv1.VirtualMachine{}
	for _, name := range names {
		key := types.NamespacedName{Namespace: ns, Name: name}
		vm := &kubevirtv1.VirtualMachine{}
		require.NoError(t, c.Get(context.Background(), key, vm))
		vmi := runningVMI(t, c, key)
		require.True(t, metav1.IsControlledBy(vmi, vm), "VMI %s belongs to its VM", name)
		vms[name] = vm
	}
	return vms
}

func requirePoolStatus(t *testing.T, c crclient.Client, key types.NamespacedName, replicas, ready int32) {
	t.Helper()
	pool := &poolv1.VirtualMachinePool{}
	require.Eventually(t, func() bool {
		return c.Get(context.Background(), key, pool) == nil && pool.Status.Replicas == replicas && pool.Status.ReadyReplicas == ready
	}, 3*time.Minute, 200*time.Millisecond, "pool status is not %d replicas, %d ready", replicas, ready)
	require.Equal(t, "vmpool="+key.Name, pool.Status.LabelSelector)
}

// requireGone waits until the VMs, their VMIs and every pod in ns are gone.
func requireGone(t *testing.T, c crclient.Client, ns string, names ...string) {
	t.Helper()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		for _, name := range names {
			key := types.NamespacedName{Namespace: ns, Name: name}
			if !apierrors.IsNotFound(c.Get(ctx, key, &kubevirtv1.VirtualMachine{})) ||
				!apierrors.IsNotFound(c.Get(ctx, key, &kubevirtv1.VirtualMachineInstance{})) {
				return false
			}
		}
		return true
	}, 3*time.Minute, 200*time.Millisecond, "VMs %v and their VMIs were not removed", names)
}

// TestVMPoolScalesReplacesAndDeletesItsVMs runs a pool of test guests on
// the shared node: it creates <pool>-0 and -1, scales out through the
// scale subresource, scales in highest index first, replaces a deleted VM
// under the lowest free index, and takes its VMs with it when deleted.
func TestVMPoolScalesReplacesAndDeletesItsVMs(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	ns := n.namespace(t)
	pool := testGuestPool(ns, "web", 2)
	require.NoError(t, n.c.Create(ctx, pool))
	key := crclient.ObjectKeyFromObject(pool)
	defer func() {
		_ = n.c.Delete(ctx, pool)
		requireGone(t, n.c, ns, "web-0", "web-1", "web-2")
	}()

	requirePoolVMs(t, n.c, ns, "web-0", "web-1")
	vms := requireRunning(t, n.c, ns, "web-0", "web-1")
	ref := metav1.GetControllerOf(vms["web-0"])
	require.NotNil(t, ref)
	require.Equal(t, "pool.kubevirt.io/v1beta1", ref.APIVersion)
	require.Contains(t, vms["web-0"].Finalizers, poolv1.VirtualMachinePoolControllerFinalizer)
	// The revision is <pool>-<generation>: the pool's first generation.
	require.Equal(t, "web-1", vms["web-0"].Labels[kubevirtv1.VirtualMachinePoolRevisionName])
	requirePoolStatus(t, n.c, key, 2, 2)

	scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	require.NoError(t, n.c.SubResource("scale").Update(ctx, pool, crclient.WithSubResourceBody(scale)))
	requirePoolVMs(t, n.c, ns, "web-0", "web-1", "web-2")
	requireRunning(t, n.c, ns, "web-2")
	requirePoolStatus(t, n.c, key, 3, 3)

	setPoolReplicas(t, n.c, key, 1)
	requirePoolVMs(t, n.c, ns, "web-0")
	requireGone(t, n.c, ns, "web-1", "web-2")
	requirePoolStatus(t, n.c, key, 1, 1)

	first := vms["web-0"]
	require.NoError(t, n.c.Delete(ctx, first))
	require.Eventually(t, func() bool {
		vm := &kubevirtv1.VirtualMachine{}
		return n.c.Get(ctx, crclient.ObjectKeyFromObject(first), vm) == nil && vm.UID != first.UID && vm.DeletionTimestamp == nil
	}, 3*time.Minute, 200*time.Millisecond, "the deleted VM was not replaced under its index")
	requirePoolVMs(t, n.c, ns, "web-0")
	requireRunning(t, n.c, ns, "web-0")
	requirePoolStatus(t, n.c, key, 1, 1)

	require.NoError(t, n.c.Delete(ctx, pool))
	requireGone(t, n.c, ns, "web-0")
	require.Eventually(t, func() bool {
		pods := &corev1.PodList{}
		return n.c.List(ctx, pods, crclient.InNamespace(ns)) == nil && len(pods.Items) == 0 &&
			apierrors.IsNotFound(n.c.Get(ctx, key, &poolv1.VirtualMachinePool{}))
	}, 3*time.Minute, 200*time.Millisecond, "the pool, or its launcher pods, were not removed")
}

func setPoolReplicas(t *testing.T, c crclient.Client, key types.NamespacedName, replicas int32) {
	pool := &poolv1.VirtualMachinePool{}
	require.NoError(t, c.Get(context.Background(), key, pool))
	patch := crclient.MergeFrom(pool.DeepCopy())
	pool.Spec.Replicas = &replicas
	require.NoError(t, c.Patch(context.Background(), pool, patch))
}
