package hco

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

func newHC() *hcov1beta1.HyperConverged {
	return &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "u1",
	}}
}

func setup(t *testing.T, objs ...client.Object) (*Activities, client.Client) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	return &Activities{Client: c}, c
}

func TestEnsureComponentTwiceLeavesOneObject(t *testing.T) {
	hc := newHC()
	a, c := setup(t, hc)
	ref := hco.HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: "u1"}
	plan, err := a.PlanComponents(context.Background(), ref)
	require.NoError(t, err)
	require.Len(t, plan, 4, "no HostPathProvisioner unless asked for")
	for i := 0; i < 2; i++ {
		require.NoError(t, a.EnsureComponent(context.Background(), hco.EnsureComponentInput{HyperConverged: ref, Component: plan[1]}))
	}
	list := &cdiv1beta1.CDIList{}
	require.NoError(t, c.List(context.Background(), list))
	require.Len(t, list.Items, 1)
}

func TestPlanFailsPermanentlyWhenTheHyperConvergedIsReplaced(t *testing.T) {
	hc := newHC()
	a, _ := setup(t, hc)
	_, err := a.PlanComponents(context.Background(), hco.HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: "older-uid"})
	require.ErrorContains(t, err, "no longer exists")
}

func TestWaitComponentsGoneReturnsOnceEveryComponentIsDeleted(t *testing.T) {
	hc := newHC()
	a, c := setup(t, hc)
	a.PollInterval = 10 * time.Millisecond
	ctx := context.Background()
	ref := hco.HyperConvergedRef{Namespace: hc.Namespace, Name: hc.Name, UID: "u1"}
	plan, err := a.PlanComponents(ctx, ref)
	require.NoError(t, err)
	for _, comp := range plan {
		require.NoError(t, a.EnsureComponent(ctx, hco.EnsureComponentInput{HyperConverged: ref, Component: comp}))
	}
	var env testsuite.WorkflowTestSuite
	actEnv := env.NewTestActivityEnvironment()
	actEnv.RegisterActivity(a)
	done := make(chan error, 1)
	go func() {
		_, err := actEnv.ExecuteActivity(a.WaitComponentsGone, plan)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("returned while the components exist: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	require.NoError(t, a.DeleteComponents(ctx, plan))
	require.NoError(t, <-done)
	list := &cdiv1beta1.CDIList{}
	require.NoError(t, c.List(ctx, list))
	require.Empty(t, list.Items)
}
