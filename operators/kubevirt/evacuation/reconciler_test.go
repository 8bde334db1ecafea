package evacuation

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
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

var now = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func liveMigrate() *kubevirtv1.EvictionStrategy {
	s := kubevirtv1.EvictionStrategyLiveMigrate
	return &s
}

// vmiOn is a running, migratable LiveMigrate VMI on node, marked to leave
// evacuate ("" for none).
func vmiOn(name, node, evacuate string) *kubevirtv1.VirtualMachineInstance {
	return &kubevirtv1.VirtualMachineInstance{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec:       kubevirtv1.VirtualMachineInstanceSpec{EvictionStrategy: liveMigrate()},
		Status: kubevirtv1.VirtualMachineInstanceStatus{Phase: kubevirtv1.Running, NodeName: node, EvacuationNodeName: evacuate,
			Conditions: []kubevirtv1.VirtualMachineInstanceCondition{{Type: kubevirtv1.VirtualMachineInstanceIsMigratable, Status: corev1.ConditionTrue}}},
	}
}

func migrationOf(name, vmi string, phase kubevirtv1.VirtualMachineInstanceMigrationPhase, created time.Time) *kubevirtv1.VirtualMachineInstanceMigration {
	m := &kubevirtv1.VirtualMachineInstanceMigration{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.NewTime(created)},
		Spec:       kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vmi},
		Status:     kubevirtv1.VirtualMachineInstanceMigrationStatus{Phase: phase},
	}
	if phase == kubevirtv1.MigrationFailed {
		m.Status.PhaseTransitionTimestamps = []kubevirtv1.VirtualMachineInstanceMigrationPhaseTransitionTimestamp{
			{Phase: kubevirtv1.MigrationFailed, PhaseTransitionTimestamp: metav1.NewTime(created.Add(time.Second))}}
	}
	return m
}

type env struct {
	r      *Reconciler
	c      client.Client
	events *record.FakeRecorder
}

func newEnv(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) *env {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	named := 0
	if funcs.Create == nil {
		// The API server names what is created by generateName.
		funcs.Create = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			named++
			obj.SetName(fmt.Sprintf("%s%05d", obj.GetGenerateName(), named))
			return c.Create(ctx, obj, opts...)
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithIndex(&kubevirtv1.VirtualMachineInstance{}, nodeNameIndex, vmiNode).WithInterceptorFuncs(funcs).Build()
	events := record.NewFakeRecorder(50)
	return &env{r: &Reconciler{Client: c, Reader: c, Recorder: events, Now: func() time.Time { return now }}, c: c, events: events}
}

func (e *env) reconcile(t *testing.T, node string) (ctrl.Result, error) {
	t.Helper()
	return e.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: node}})
}

func (e *env) migrations(t *testing.T) []kubevirtv1.VirtualMachineInstanceMigration {
	t.Helper()
	list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	require.NoError(t, e.c.List(context.Background(), list))
	return list.Items
}

func (e *env) drained() []string {
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

func TestEachMarkedVMIGetsOneEvacuationMigration(t *testing.T) {
	e := newEnv(t, interceptor.Funcs{}, vmiOn("a", "node-1", "node-1"), vmiOn("b", "node-1", ""), vmiOn("c", "node-2", "node-1"))
	res, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter)
	migs := e.migrations(t)
	require.Len(t, migs, 1, "only the marked VMI still on the node moves")
	m := migs[0]
	assert.Equal(t, "a", m.Spec.VMIName)
	assert.True(t, strings.HasPrefix(m.Name, "kubevirt-evacuation-"))
	assert.Equal(t, "kubevirt-evacuation-", m.GenerateName)
	assert.Equal(t, "node-1", m.Annotations[kubevirtv1.EvacuationMigrationAnnotation])
	assert.Equal(t, []string{"Normal SuccessfulCreate Created Migration " + m.Name}, e.drained())

	_, err = e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Len(t, e.migrations(t), 1, "a VMI with a migration in flight gets no second one")
}

func TestTheNodeLimitHoldsTheRestBack(t *testing.T) {
	e := newEnv(t, interceptor.Funcs{}, vmiOn("a", "node-1", "node-1"), vmiOn("b", "node-1", "node-1"), vmiOn("c", "node-1", "node-1"))
	_, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Len(t, e.migrations(t), 2, "two outbound migrations per node by default")
	res, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, res.RequeueAfter, "no room: upstream looks again in 5s")
	assert.Len(t, e.migrations(t), 2)
}

func TestTheClusterLimitCountsEveryMigrationInFlight(t *testing.T) {
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt", Name: "kv"}}
	three, ten := uint32(3), uint32(10)
	kv.Spec.Configuration.MigrationConfiguration = &kubevirtv1.MigrationConfiguration{ParallelMigrationsPerCluster: &three, ParallelOutboundMigrationsPerNode: &ten}
	elsewhere := migrationOf("user", "x", kubevirtv1.MigrationRunning, now)
	e := newEnv(t, interceptor.Funcs{}, kv, elsewhere, vmiOn("x", "node-2", ""),
		vmiOn("a", "node-1", "node-1"), vmiOn("b", "node-1", "node-1"), vmiOn("c", "node-1", "node-1"))
	_, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Len(t, e.migrations(t), 3, "three in the cluster, one of them already running")
}

func TestTheClusterStrategyAndLiveMigratabilityDecide(t *testing.T) {
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt", Name: "kv"}}
	kv.Spec.Configuration.EvictionStrategy = liveMigrate()
	byCluster := vmiOn("cluster", "node-1", "node-1")
	byCluster.Spec.EvictionStrategy = nil
	none := vmiOn("none", "node-1", "node-1")
	s := kubevirtv1.EvictionStrategyNone
	none.Spec.EvictionStrategy = &s
	stuck := vmiOn("stuck", "node-1", "node-1")
	stuck.Status.Conditions[0].Status = corev1.ConditionFalse
	e := newEnv(t, interceptor.Funcs{}, kv, byCluster, none, stuck)
	res, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	migs := e.migrations(t)
	require.Len(t, migs, 1)
	assert.Equal(t, "cluster", migs[0].Spec.VMIName)
	events := e.drained()
	assert.Contains(t, events, "Normal FailedCreate VirtualMachineInstance is not migrateable")
	assert.Zero(t, res.RequeueAfter)

	e = newEnv(t, interceptor.Funcs{}, kv, stuck)
	res, err = e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Empty(t, e.migrations(t))
	assert.Equal(t, time.Minute, res.RequeueAfter, "only VMIs that cannot move: upstream reminds every minute")
}

func TestVMIsMovingOrWithTwoPodsAreLeftAlone(t *testing.T) {
	moving := vmiOn("moving", "node-1", "node-1")
	start := metav1.NewTime(now.Add(-time.Minute))
	moving.Status.MigrationState = &kubevirtv1.VirtualMachineInstanceMigrationState{StartTimestamp: &start}
	twoPods := vmiOn("two", "node-1", "node-1")
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{kubevirtv1.CreatedByLabel: "uid-two"}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	e := newEnv(t, interceptor.Funcs{}, moving, twoPods, pod("p1"), pod("p2"))
	_, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Empty(t, e.migrations(t))
}

func TestAFailedCreationIsReportedOnTheVMI(t *testing.T) {
	refuse := interceptor.Funcs{Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
		return fmt.Errorf("admission webhook denied")
	}}
	e := newEnv(t, refuse, vmiOn("a", "node-1", "node-1"))
	_, err := e.reconcile(t, "node-1")
	require.ErrorContains(t, err, "creating the evacuation migration of ns/a: admission webhook denied")
	assert.Equal(t, []string{"Warning FailedCreate Error creating a Migration: admission webhook denied"}, e.drained())
}

func TestFailedAttemptsBackOffAsUpstream(t *testing.T) {
	older := migrationOf("m1", "a", kubevirtv1.MigrationFailed, now.Add(-2*time.Minute))
	newer := migrationOf("m2", "a", kubevirtv1.MigrationFailed, now.Add(-11*time.Second))
	e := newEnv(t, interceptor.Funcs{}, vmiOn("a", "node-1", "node-1"), older, newer)
	res, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	assert.Len(t, e.migrations(t), 2, "no new attempt yet")
	assert.Equal(t, 30*time.Second, res.RequeueAfter, "two failures: 40s from the last one, 10s ago")
	assert.Equal(t, []string{"Warning MigrationBackoff backoff migrating vmi ns/a"}, e.drained())

	succeeded := migrationOf("m0", "a", kubevirtv1.MigrationSucceeded, now.Add(-time.Minute))
	old := migrationOf("m1", "a", kubevirtv1.MigrationFailed, now.Add(-2*time.Minute))
	assert.Equal(t, 10*time.Second, backoff([]kubevirtv1.VirtualMachineInstanceMigration{*old, *succeeded, *newer}, now),
		"failures before the last success do not count")
	assert.Zero(t, backoff([]kubevirtv1.VirtualMachineInstanceMigration{*old}, now))
}

func drainTaintedNode(name, key string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: key, Effect: corev1.TaintEffectNoSchedule}}}}
}

func TestANodeTaintedForDrainingIsEvacuatedWithoutEvictions(t *testing.T) {
	stays := vmiOn("none", "node-1", "")
	none := kubevirtv1.EvictionStrategyNone
	stays.Spec.EvictionStrategy = &none
	e := newEnv(t, interceptor.Funcs{}, drainTaintedNode("node-1", "kubevirt.io/drain"), vmiOn("a", "node-1", ""), stays, vmiOn("c", "node-2", ""))
	_, err := e.reconcile(t, "node-1")
	require.NoError(t, err)
	migs := e.migrations(t)
	require.Len(t, migs, 1, "every VMI moved on eviction leaves a tainted node, marked or not; none other")
	assert.Equal(t, "a", migs[0].Spec.VMIName)
}

func TestTheDrainTaintKeyIsTheClusters(t *testing.T) {
	kv := &kubevirtv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt", Name: "kv"}}
	key := "example.com/maintenance"
	kv.Spec.Configuration.MigrationConfiguration = &kubevirtv1.MigrationConfiguration{NodeDrainTaintKey: &key}
	e := newEnv(t, interceptor.Funcs{}, kv, drainTaintedNode("node-1", "kubevirt.io/drain"), drainTaintedNode("node-2", key),
		vmiOn("a", "node-1", ""), vmiOn("b", "node-2", ""))
	for _, node := range []string{"node-1", "node-2"} {
		_, err := e.reconcile(t, node)
		require.NoError(t, err)
	}
	migs := e.migrations(t)
	require.Len(t, migs, 1, "only the configured key drains")
	assert.Equal(t, "b", migs[0].Spec.VMIName)
}
