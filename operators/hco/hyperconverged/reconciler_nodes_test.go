package hyperconverged

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/operands"
)

func workers(names ...string) []crclient.Object {
	var out []crclient.Object
	for _, n := range names {
		out = append(out, node(n, LabelNodeRoleWorker))
	}
	return out
}

func reconcileOnce(t *testing.T, r *Reconciler, req ctrl.Request) {
	t.Helper()
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
}

// kubeVirtCR is the KubeVirt CR the reconciler keeps for the HyperConverged.
func kubeVirtCR(t *testing.T, c crclient.Client, req ctrl.Request) *kubevirtv1.KubeVirt {
	t.Helper()
	for _, d := range operands.Desired(getHC(t, c, req)) {
		if kv, ok := d.(*kubevirtv1.KubeVirt); ok {
			got := &kubevirtv1.KubeVirt{}
			require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: kv.Namespace, Name: kv.Name}, got))
			return got
		}
	}
	t.Fatal("the HyperConverged derives no KubeVirt CR")
	return nil
}

func TestStatusFollowsTheWorkersAsNodesComeAndGo(t *testing.T) {
	r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithObjects(workers("w1")...))
	ctx := context.Background()
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(false), getHC(t, c, req).Status.InfrastructureHighlyAvailable, "one worker")

	require.NoError(t, c.Create(ctx, node("w2", LabelNodeRoleWorker)))
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(true), getHC(t, c, req).Status.InfrastructureHighlyAvailable, "a second worker")

	w2 := &corev1.Node{}
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: "w2"}, w2))
	delete(w2.Labels, LabelNodeRoleWorker)
	require.NoError(t, c.Update(ctx, w2))
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(false), getHC(t, c, req).Status.InfrastructureHighlyAvailable, "the second node is no longer a worker")
}

func TestAControlPlaneOnlyClusterIsNotHighlyAvailable(t *testing.T) {
	r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithObjects(
		node("cp1", labelControlPlane), node("cp2", labelControlPlane), node("cp3", labelMaster)))
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	reconcileOnce(t, r, req)
	hc := getHC(t, c, req)
	require.Equal(t, ptr.To(false), hc.Status.InfrastructureHighlyAvailable)
	require.Equal(t, ptr.To(hcov1beta1.EvictionStrategyNone), hc.Spec.EvictionStrategy)
}

func TestTheDefaultEvictionStrategyReachesTheKubeVirtCR(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers []string
		want    kubevirtv1.EvictionStrategy
	}{
		{"one worker", []string{"w1"}, kubevirtv1.EvictionStrategyNone},
		{"two workers", []string{"w1", "w2"}, kubevirtv1.EvictionStrategyLiveMigrate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithObjects(workers(tc.workers...)...))
			ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
			reconcileOnce(t, r, req)
			require.Equal(t, string(tc.want), string(*getHC(t, c, req).Spec.EvictionStrategy), "the HyperConverged's spec")
			require.Equal(t, ptr.To(tc.want), kubeVirtCR(t, c, req).Spec.Configuration.EvictionStrategy)
		})
	}
}

func TestTheDefaultWaitsForTheComponentsTheWebhookTriesItOn(t *testing.T) {
	r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithObjects(workers("w1", "w2")...))
	reconcileOnce(t, r, req)
	require.Len(t, ft.started, 1)
	require.Nil(t, getHC(t, c, req).Spec.EvictionStrategy, "while the install runs, the components a spec change is dry-run on may be missing")
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(hcov1beta1.EvictionStrategyLiveMigrate), getHC(t, c, req).Spec.EvictionStrategy)
}

func TestAChosenEvictionStrategyStaysWhateverTheNodes(t *testing.T) {
	r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithObjects(workers("w1", "w2")...))
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	hc := getHC(t, c, req)
	hc.Spec.EvictionStrategy = ptr.To(hcov1beta1.EvictionStrategyExternal)
	require.NoError(t, c.Update(context.Background(), hc))
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(hcov1beta1.EvictionStrategyExternal), getHC(t, c, req).Spec.EvictionStrategy)
	require.Equal(t, ptr.To(kubevirtv1.EvictionStrategyExternal), kubeVirtCR(t, c, req).Spec.Configuration.EvictionStrategy)
}

func TestADefaultedStrategyStaysWhenASecondWorkerJoinsAndFollowsOnceRemoved(t *testing.T) {
	r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithObjects(workers("w1")...))
	ctx := context.Background()
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(hcov1beta1.EvictionStrategyNone), getHC(t, c, req).Spec.EvictionStrategy)

	require.NoError(t, c.Create(ctx, node("w2", LabelNodeRoleWorker)))
	reconcileOnce(t, r, req)
	hc := getHC(t, c, req)
	require.Equal(t, ptr.To(true), hc.Status.InfrastructureHighlyAvailable)
	require.Equal(t, ptr.To(hcov1beta1.EvictionStrategyNone), hc.Spec.EvictionStrategy, "a strategy once set is the user's")

	hc.Spec.EvictionStrategy = nil
	require.NoError(t, c.Update(ctx, hc))
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(hcov1beta1.EvictionStrategyLiveMigrate), getHC(t, c, req).Spec.EvictionStrategy, "removed, it follows the nodes")
}

func TestNodesThatCannotBeListedFailTheReconcile(t *testing.T) {
	r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c crclient.WithWatch, list crclient.ObjectList, opts ...crclient.ListOption) error {
			if _, ok := list.(*corev1.NodeList); ok {
				return errors.New("nodes is forbidden")
			}
			return c.List(ctx, list, opts...)
		},
	}))
	_, err := r.Reconcile(context.Background(), req)
	require.ErrorContains(t, err, "nodes is forbidden")
	require.Empty(t, ft.started, "nothing starts on a guess")
	hc := getHC(t, c, req)
	require.Nil(t, hc.Spec.EvictionStrategy)
	require.Nil(t, hc.Status.InfrastructureHighlyAvailable)
}

func TestTheDefaultReachingTheComponentsIsNoOutOfBandEdit(t *testing.T) {
	r, ft, c, req := setupWith(t, fake.NewClientBuilder().WithObjects(workers("w1", "w2")...))
	ctx := context.Background()
	// The components as the install made them, before the default.
	objs, err := operands.Patched(getHC(t, c, req))
	require.NoError(t, err)
	for _, o := range objs {
		require.NoError(t, c.Create(ctx, o))
	}
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	reconcileOnce(t, r, req)
	require.Equal(t, ptr.To(kubevirtv1.EvictionStrategyLiveMigrate), kubeVirtCR(t, c, req).Spec.Configuration.EvictionStrategy)
	events := r.Recorder.(*record.FakeRecorder).Events
	for len(events) > 0 {
		require.NotContains(t, <-events, "Overwritten", "the HyperConverged's own change is no out-of-band edit")
	}
}
