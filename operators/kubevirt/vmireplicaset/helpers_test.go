package vmireplicaset

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// env is a replica set under test. The fake client cannot store VMIs it
// is asked to create (a uint64 in their status), so creations are only
// recorded; VMIs given at the start are stored and can be deleted.
type env struct {
	r        *Reconciler
	c        client.Client
	rec      *record.FakeRecorder
	mu       sync.Mutex
	created  []*kubevirtv1.VirtualMachineInstance
	failWith error // Create and Delete of VMIs fail with it when set
}

func replicaSet(replicas int32) *kubevirtv1.VirtualMachineInstanceReplicaSet {
	mem := resource.MustParse("64Mi")
	return &kubevirtv1.VirtualMachineInstanceReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "rs-uid", Annotations: map[string]string{
			kubevirtv1.ControllerAPILatestVersionObservedAnnotation:  "v1",
			kubevirtv1.ControllerAPIStorageVersionObservedAnnotation: "v1",
		}},
		Spec: kubevirtv1.VirtualMachineInstanceReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: &kubevirtv1.VirtualMachineInstanceTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"},
					Annotations: map[string]string{"note": "kept"}},
				Spec: kubevirtv1.VirtualMachineInstanceSpec{Domain: kubevirtv1.DomainSpec{Memory: &kubevirtv1.Memory{Guest: &mem}}},
			},
		},
	}
}

// vmi is a VMI of the replica set, created age ago, in phase p; ready
// adds Ready=True.
func vmi(name string, age time.Duration, p kubevirtv1.VirtualMachineInstancePhase, ready bool) *kubevirtv1.VirtualMachineInstance {
	yes := true
	v := &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"),
			Labels:            map[string]string{"app": "web"},
			CreationTimestamp: metav1.NewTime(time.Now().Add(-age).Truncate(time.Second)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachineInstanceReplicaSet",
				Name: "web", UID: "rs-uid", Controller: &yes, BlockOwnerDeletion: &yes}}},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: p},
	}
	if ready {
		v.Status.Conditions = []kubevirtv1.VirtualMachineInstanceCondition{{Type: kubevirtv1.VirtualMachineInstanceReady, Status: corev1.ConditionTrue}}
	}
	return v
}

func orphan(v *kubevirtv1.VirtualMachineInstance) *kubevirtv1.VirtualMachineInstance {
	v.OwnerReferences = nil
	return v
}

func newEnv(t *testing.T, objs ...client.Object) *env {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	e := &env{rec: record.NewFakeRecorder(1000)}
	e.c = fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&kubevirtv1.VirtualMachineInstanceReplicaSet{}).
		WithInterceptorFuncs(interceptor.Funcs{Create: e.create, Delete: e.delete}).Build()
	e.r = &Reconciler{Client: e.c, Recorder: e.rec}
	return e
}

func (e *env) create(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	v, ok := obj.(*kubevirtv1.VirtualMachineInstance)
	if !ok {
		return c.Create(ctx, obj, opts...)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failWith != nil {
		return e.failWith
	}
	v.Name = fmt.Sprintf("%s%05d", v.GenerateName, len(e.created))
	e.created = append(e.created, v)
	return nil
}

func (e *env) delete(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
	if _, ok := obj.(*kubevirtv1.VirtualMachineInstance); ok && e.failWith != nil {
		return e.failWith
	}
	return c.Delete(ctx, obj, opts...)
}

func (e *env) sync(t *testing.T) error {
	t.Helper()
	_, err := e.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}})
	return err
}

func (e *env) rs(t *testing.T) *kubevirtv1.VirtualMachineInstanceReplicaSet {
	t.Helper()
	rs := &kubevirtv1.VirtualMachineInstanceReplicaSet{}
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "web"}, rs))
	return rs
}

func (e *env) vmiNames(t *testing.T) []string {
	t.Helper()
	list := &kubevirtv1.VirtualMachineInstanceList{}
	require.NoError(t, e.c.List(context.Background(), list))
	var names []string
	for _, v := range list.Items {
		names = append(names, v.Name)
	}
	return names
}

func (e *env) vmi(t *testing.T, name string) *kubevirtv1.VirtualMachineInstance {
	t.Helper()
	v := &kubevirtv1.VirtualMachineInstance{}
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: name}, v))
	return v
}

// events drains the recorded events.
func (e *env) events() []string {
	var out []string
	for {
		select {
		case ev := <-e.rec.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func condition(rs *kubevirtv1.VirtualMachineInstanceReplicaSet, t kubevirtv1.VirtualMachineInstanceReplicaSetConditionType) *kubevirtv1.VirtualMachineInstanceReplicaSetCondition {
	for i, c := range rs.Status.Conditions {
		if c.Type == t {
			return &rs.Status.Conditions[i]
		}
	}
	return nil
}
