package workflowreconcile

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/virtflow/virtflow/kube/workflowstate"
)

const (
	memoKey   = "progress"
	finalizer = "example.io/workflow"
	wfID      = "wf-cm-uid"
)

type progress struct {
	Step string `json:"step"`
}

// view is the test kind's V: the decoded memo and what Start noted.
type view struct {
	progress progress
	noted    string
}

type reported struct {
	run Run
	v   view
}

// harness is a kind of ConfigMaps backed by one workflow each, recording
// what its hooks were handed.
type harness struct {
	t       *testing.T
	c       client.Client
	tc      *fakeTemporal
	l       Lifecycle[*corev1.ConfigMap, view]
	reports []reported
	// reportResult is what Report returns.
	reportResult reconcile.Result
}

func newHarness(t *testing.T, finalizers ...string) *harness {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", UID: "cm-uid", Finalizers: finalizers}}
	h := &harness{t: t, c: fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(cm).Build(), tc: newFakeTemporal(t)}
	h.l = Lifecycle[*corev1.ConfigMap, view]{
		Objects:    Objects{Client: h.c, Kind: "ConfigMap", Finalizer: finalizer},
		Workflows:  Workflows{Temporal: h.tc, TaskQueue: "control"},
		New:        func() *corev1.ConfigMap { return &corev1.ConfigMap{} },
		WorkflowID: func(cm *corev1.ConfigMap) string { return "wf-" + string(cm.UID) },
		MemoKey:    memoKey,
		Progress:   func(v *view) any { return &v.progress },
		Start: func(_ context.Context, cm *corev1.ConfigMap, v *view) (*Workflow, error) {
			v.noted = "started"
			return &Workflow{Type: "example.Fill", Input: cm.Name}, nil
		},
		Report: func(_ context.Context, _ *corev1.ConfigMap, v *view, run Run) (reconcile.Result, error) {
			h.reports = append(h.reports, reported{run: run, v: *v})
			return h.reportResult, nil
		},
	}
	return h
}

func (h *harness) reconcile() reconcile.Result {
	h.t.Helper()
	res, err := h.l.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "cm"}})
	require.NoError(h.t, err)
	return res
}

func (h *harness) get() (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	err := h.c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "cm"}, cm)
	return cm, err
}

func (h *harness) delete() {
	h.t.Helper()
	cm, err := h.get()
	require.NoError(h.t, err)
	require.NoError(h.t, h.c.Delete(context.Background(), cm))
}

func TestANewObjectIsHeldAndItsWorkflowStartedOnce(t *testing.T) {
	h := newHarness(t)
	res := h.reconcile()
	require.Equal(t, workflowstate.Resync, res.RequeueAfter, "a running workflow is looked at again")
	require.Len(t, h.tc.started, 1)
	s := h.tc.started[0]
	require.Equal(t, wfID, s.opts.ID)
	require.Equal(t, "control", s.opts.TaskQueue)
	require.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, s.opts.WorkflowIDConflictPolicy)
	require.Equal(t, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, s.opts.WorkflowIDReusePolicy)
	require.Equal(t, "example.Fill", s.typ)
	require.Equal(t, "cm", s.input)
	cm, err := h.get()
	require.NoError(t, err)
	require.Contains(t, cm.Finalizers, finalizer)
	require.Equal(t, reported{run: Run{ID: wfID, State: workflowstate.State{Phase: workflowstate.Running}, Started: true},
		v: view{noted: "started"}}, h.reports[0], "Report sees what Start noted")

	h.tc.memo[wfID], h.tc.history[wfID] = progress{Step: "Copying"}, 7
	h.reconcile()
	require.Len(t, h.tc.started, 1, "a running workflow is not started again")
	require.Equal(t, reported{run: Run{ID: wfID, State: workflowstate.State{Phase: workflowstate.Running, HistoryLength: 7}},
		v: view{progress: progress{Step: "Copying"}}}, h.reports[1], "the memo is decoded into the view")
}

func TestAMissingObjectIsNoError(t *testing.T) {
	h := newHarness(t)
	cm, err := h.get()
	require.NoError(t, err)
	require.NoError(t, h.c.Delete(context.Background(), cm))
	require.Zero(t, h.reconcile())
	require.Empty(t, h.tc.described)
}

func TestAnObjectTheKindDoesNotAcceptIsLeftAlone(t *testing.T) {
	h := newHarness(t)
	h.l.Accept = func(context.Context, *corev1.ConfigMap) (bool, error) { return false, nil }
	require.Zero(t, h.reconcile())
	cm, err := h.get()
	require.NoError(t, err)
	require.Empty(t, cm.Finalizers)
	require.Empty(t, h.tc.described)
}

func TestAnObjectNotReadyEndsTheReconcileBeforeItsWorkflow(t *testing.T) {
	h := newHarness(t)
	h.l.Prepare = func(context.Context, *corev1.ConfigMap) (view, *reconcile.Result, error) {
		return view{}, &reconcile.Result{RequeueAfter: 2 * time.Second}, nil
	}
	require.Equal(t, 2*time.Second, h.reconcile().RequeueAfter)
	require.Empty(t, h.tc.described)
	require.Empty(t, h.reports)
	cm, err := h.get()
	require.NoError(t, err)
	require.Contains(t, cm.Finalizers, finalizer, "held before it prepares anything")
}

func TestPreparedViewReachesStartAndReport(t *testing.T) {
	h := newHarness(t)
	h.l.Prepare = func(context.Context, *corev1.ConfigMap) (view, *reconcile.Result, error) {
		return view{noted: "prepared"}, nil, nil
	}
	h.l.Start = func(_ context.Context, _ *corev1.ConfigMap, v *view) (*Workflow, error) {
		require.Equal(t, "prepared", v.noted)
		return &Workflow{Type: "example.Fill", Input: 1}, nil
	}
	h.reconcile()
	require.Equal(t, "prepared", h.reports[0].v.noted)
}

func TestStartMayLeaveTheWorkflowAbsent(t *testing.T) {
	h := newHarness(t)
	h.l.Start = func(context.Context, *corev1.ConfigMap, *view) (*Workflow, error) { return nil, nil }
	require.Zero(t, h.reconcile(), "nothing runs, nothing to wait for")
	require.Empty(t, h.tc.started)
	require.Equal(t, Run{ID: wfID, State: workflowstate.State{Phase: workflowstate.NotFound}}, h.reports[0].run)
}

func TestAClosedWorkflowIsReportedAndNotWaitedFor(t *testing.T) {
	h := newHarness(t)
	h.tc.status[wfID] = enumspb.WORKFLOW_EXECUTION_STATUS_FAILED
	require.Zero(t, h.reconcile())
	require.Empty(t, h.tc.started, "a closed run is the object's outcome")
	run := h.reports[0].run
	require.Equal(t, workflowstate.Failed, run.Phase)
	require.Equal(t, "the source is gone", run.Message)
}

func TestTheKindsResultStandsWhileItsWorkflowRuns(t *testing.T) {
	h := newHarness(t)
	h.reportResult = reconcile.Result{RequeueAfter: 10 * time.Second}
	require.Equal(t, 10*time.Second, h.reconcile().RequeueAfter)
}

func TestAFailedStartNamesTheObject(t *testing.T) {
	h := newHarness(t)
	h.tc.startErr = errors.New("frontend unavailable")
	_, err := h.l.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "cm"}})
	require.ErrorIs(t, err, h.tc.startErr)
	require.ErrorContains(t, err, "ConfigMap ns/cm: starting workflow example.Fill as wf-cm-uid")
	require.Empty(t, h.reports)
}

func TestDeletionCancelsWaitsForTheWorkflowThenFinalizes(t *testing.T) {
	h := newHarness(t)
	var finalized int
	var done bool
	h.l.Finalize = func(context.Context, *corev1.ConfigMap) (bool, reconcile.Result, error) {
		finalized++
		return done, reconcile.Result{RequeueAfter: 3 * time.Second}, nil
	}
	h.reconcile()
	h.delete()
	require.Equal(t, workflowstate.Resync, h.reconcile().RequeueAfter, "waits for the workflow to unwind")
	require.Equal(t, []string{wfID}, h.tc.cancelled)
	require.Zero(t, finalized, "nothing more while the workflow runs")

	h.tc.status[wfID] = enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED
	require.Equal(t, 3*time.Second, h.reconcile().RequeueAfter, "the kind's finalization is not done")
	cm, err := h.get()
	require.NoError(t, err)
	require.Contains(t, cm.Finalizers, finalizer)

	done = true
	require.Zero(t, h.reconcile())
	_, err = h.get()
	require.True(t, apierrors.IsNotFound(err), "the object goes with its finalizer: %v", err)
	require.Equal(t, 2, finalized)
	require.Len(t, h.tc.cancelled, 1)
	require.Len(t, h.tc.started, 1, "deletion starts nothing")
}

func TestAKindWithoutFinalizerOnlyCancelsOnDeletion(t *testing.T) {
	h := newHarness(t, "example.io/other")
	h.l.Finalizer = ""
	h.reconcile()
	h.delete()
	require.Zero(t, h.reconcile(), "nothing holds the object, so nothing waits")
	require.Equal(t, []string{wfID}, h.tc.cancelled)
	cm, err := h.get()
	require.NoError(t, err)
	require.Equal(t, []string{"example.io/other"}, cm.Finalizers)
}

func TestADeletedObjectItNoLongerHoldsIsLeftAlone(t *testing.T) {
	h := newHarness(t, "example.io/other")
	h.delete()
	require.Zero(t, h.reconcile())
	require.Empty(t, h.tc.described)
}

func TestARunningWorkflowIsWatched(t *testing.T) {
	h := newHarness(t)
	w := workflowstate.NewWatcher(h.tc)
	h.l.Watcher = w
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = w.Start(ctx) }()
	h.reconcile()
	select {
	case id := <-h.tc.polls:
		require.Equal(t, wfID, id)
	case <-time.After(5 * time.Second):
		t.Fatal("the running workflow is not watched")
	}
}
