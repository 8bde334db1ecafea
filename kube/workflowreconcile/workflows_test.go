package workflowreconcile

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

func TestEnsureKeepsAReusePolicyItIsGiven(t *testing.T) {
	tc := newFakeTemporal(t)
	w := Workflows{Temporal: tc, TaskQueue: "control"}
	wf := Workflow{Type: "example.Remove", Input: "x", ReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY}
	require.NoError(t, w.Ensure(context.Background(), "remove-1", wf))
	require.Equal(t, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY, tc.started[0].opts.WorkflowIDReusePolicy)
	require.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, tc.started[0].opts.WorkflowIDConflictPolicy)
}

func TestWaitIsForRunningWorkflowsOnly(t *testing.T) {
	w := Workflows{Temporal: newFakeTemporal(t)}
	obj := &corev1.ConfigMap{}
	require.Equal(t, workflowstate.Resync, w.Wait("a", workflowstate.State{Phase: workflowstate.Running}, obj).RequeueAfter)
	for _, p := range []workflowstate.Phase{workflowstate.NotFound, workflowstate.Succeeded, workflowstate.Failed, workflowstate.Cancelled} {
		require.Zero(t, w.Wait("a", workflowstate.State{Phase: p}, obj), p)
	}
}

func TestHoldAndReleaseWriteOnlyOnChange(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	cm, err := h.get()
	require.NoError(t, err)
	o := h.l.Objects
	require.False(t, o.Holds(cm))
	require.NoError(t, o.Hold(ctx, cm))
	held := cm.ResourceVersion
	require.NoError(t, o.Hold(ctx, cm))
	require.Equal(t, held, cm.ResourceVersion, "holding a held object writes nothing")
	cm, err = h.get()
	require.NoError(t, err)
	require.True(t, o.Holds(cm))

	require.NoError(t, o.Release(ctx, cm))
	released := cm.ResourceVersion
	require.NotEqual(t, held, released)
	require.NoError(t, o.Release(ctx, cm))
	require.Equal(t, released, cm.ResourceVersion, "releasing a released object writes nothing")
	cm, err = h.get()
	require.NoError(t, err)
	require.Empty(t, cm.Finalizers)
}

func TestAKindWithoutFinalizerHoldsNothing(t *testing.T) {
	h := newHarness(t)
	cm, err := h.get()
	require.NoError(t, err)
	o := Objects{Client: h.c, Kind: "ConfigMap"}
	require.NoError(t, o.Hold(context.Background(), cm))
	require.Empty(t, cm.Finalizers)
	require.False(t, o.Holds(cm))
}
