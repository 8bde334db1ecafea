package vmpool

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	poolv1 "kubevirt.io/api/pool/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

const ns = "ns"

var poolKey = ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "pool"}}

func newPool(replicas int32) *poolv1.VirtualMachinePool {
	always := kubevirtv1.RunStrategyAlways
	return &poolv1.VirtualMachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pool", UID: "pool-uid", Generation: 1},
		Spec: poolv1.VirtualMachinePoolSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			VirtualMachineTemplate: &poolv1.VirtualMachineTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "x"}},
				Spec: kubevirtv1.VirtualMachineSpec{
					RunStrategy: &always,
					Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
						Spec:       kubevirtv1.VirtualMachineInstanceSpec{Domain: kubevirtv1.DomainSpec{CPU: &kubevirtv1.CPU{Cores: 1}}},
					},
				},
			},
		},
	}
}

// poolVM is the VM the pool would have built at idx from its revision
// <pool>-<generation>.
func poolVM(pool *poolv1.VirtualMachinePool, idx int) *kubevirtv1.VirtualMachine {
	vm := vmFor(pool, idx, revisionName(pool))
	vm.UID = types.UID(vm.Name + "-uid")
	return vm
}

// revisionOf is the ControllerRevision the pool would record now.
func revisionOf(t *testing.T, pool *poolv1.VirtualMachinePool) *appsv1.ControllerRevision {
	data, err := json.Marshal(pool.Spec)
	require.NoError(t, err)
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: revisionName(pool), OwnerReferences: []metav1.OwnerReference{ownerRef(pool)}},
		Data:       runtime.RawExtension{Raw: data}, Revision: pool.Generation,
	}
}

func ready(vm *kubevirtv1.VirtualMachine) *kubevirtv1.VirtualMachine {
	vm.Status.Conditions = []kubevirtv1.VirtualMachineCondition{{Type: kubevirtv1.VirtualMachineReady, Status: corev1.ConditionTrue}}
	return vm
}

func deleting(vm *kubevirtv1.VirtualMachine) *kubevirtv1.VirtualMachine {
	now := metav1.Now()
	vm.DeletionTimestamp = &now
	return vm
}

type env struct {
	r      *Reconciler
	c      client.Client
	events *record.FakeRecorder
}

func setup(t *testing.T, objs ...client.Object) *env {
	return setupWith(t, interceptor.Funcs{}, objs...)
}

func setupWith(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) *env {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&poolv1.VirtualMachinePool{}).WithInterceptorFuncs(funcs).Build()
	events := record.NewFakeRecorder(500)
	return &env{r: &Reconciler{Client: c, Recorder: events}, c: c, events: events}
}

func (e *env) reconcile(t *testing.T) ctrl.Result {
	res, err := e.r.Reconcile(context.Background(), poolKey)
	require.NoError(t, err)
	return res
}

func (e *env) pool(t *testing.T) *poolv1.VirtualMachinePool {
	p := &poolv1.VirtualMachinePool{}
	require.NoError(t, e.c.Get(context.Background(), poolKey.NamespacedName, p))
	return p
}

func (e *env) vm(t *testing.T, name string) *kubevirtv1.VirtualMachine {
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, vm))
	return vm
}

func (e *env) vmNames(t *testing.T) []string {
	list := &kubevirtv1.VirtualMachineList{}
	require.NoError(t, e.c.List(context.Background(), list, client.InNamespace(ns)))
	var names []string
	for _, vm := range list.Items {
		if vm.DeletionTimestamp == nil {
			names = append(names, vm.Name)
		}
	}
	sort.Strings(names)
	return names
}

// drain returns the events recorded so far.
func (e *env) drain() []string {
	var out []string
	for {
		select {
		case ev := <-e.events.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func sortPolicy(p poolv1.VirtualMachinePoolSortPolicy) *poolv1.VirtualMachinePoolScaleInStrategy {
	return &poolv1.VirtualMachinePoolScaleInStrategy{Proactive: &poolv1.VirtualMachinePoolProactiveScaleInStrategy{
		SelectionPolicy: &poolv1.VirtualMachinePoolSelectionPolicy{SortPolicy: &p},
	}}
}
