package migration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	kubevirtv1 "kubevirt.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/virt"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// fakeTemporal holds one migration workflow per ID, by status and memo.
type fakeTemporal struct {
	t         *testing.T
	status    map[string]enumspb.WorkflowExecutionStatus
	memo      map[string]virt.Progress
	started   []virt.MigrateInput
	cancelled []string
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	s, ok := f.status[id]
	if !ok {
		return nil, serviceerror.NewNotFound("workflow " + id + " not found")
	}
	info := &workflowpb.WorkflowExecutionInfo{Status: s}
	if m, ok := f.memo[id]; ok {
		p, err := converter.GetDefaultDataConverter().ToPayload(m)
		require.NoError(f.t, err)
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{virt.ProgressMemoKey: p}}
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}, nil
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, typ interface{}, args ...interface{}) (client.WorkflowRun, error) {
	require.Equal(f.t, virt.MigrateWorkflowName, typ)
	f.started = append(f.started, args[0].(virt.MigrateInput))
	f.status[o.ID] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	return nil, nil
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.cancelled = append(f.cancelled, id)
	return nil
}

func (f *fakeTemporal) GetWorkflow(context.Context, string, string) client.WorkflowRun { return nil }

func (f *fakeTemporal) GetWorkflowHistory(context.Context, string, string, bool, enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	return nil
}

func world(t *testing.T, objs ...crclient.Object) (*Reconciler, *fakeTemporal, crclient.Client) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).
		WithStatusSubresource(&kubevirtv1.VirtualMachineInstanceMigration{}).Build()
	tc := &fakeTemporal{t: t, status: map[string]enumspb.WorkflowExecutionStatus{}, memo: map[string]virt.Progress{}}
	return &Reconciler{Client: c, Temporal: tc, TaskQueue: "q", Recorder: record.NewFakeRecorder(10)}, tc, c
}

func vmim() *kubevirtv1.VirtualMachineInstanceMigration {
	return &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mig", UID: "m-1"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: "vm"}}
}

func reconcileAndRead(t *testing.T, r *Reconciler, c crclient.Client) *kubevirtv1.VirtualMachineInstanceMigration {
	t.Helper()
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: crclient.ObjectKey{Namespace: "ns", Name: "mig"}})
	require.NoError(t, err)
	got := &kubevirtv1.VirtualMachineInstanceMigration{}
	require.NoError(t, c.Get(context.Background(), crclient.ObjectKey{Namespace: "ns", Name: "mig"}, got))
	return got
}

func TestAMigrationRunsAsOneWorkflowWhosePhaseTheVMIMShows(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "v-1"}}
	r, tc, c := world(t, vmim(), vmi)
	got := reconcileAndRead(t, r, c)
	require.Equal(t, []virt.MigrateInput{{Migration: virt.Ref{Namespace: "ns", Name: "mig", UID: "m-1"},
		VMI: virt.Ref{Namespace: "ns", Name: "vm", UID: "v-1"}}}, tc.started)
	require.Contains(t, got.Finalizers, kubevirtv1.VirtualMachineInstanceMigrationFinalizer, "held until its workflow ends")
	require.Equal(t, kubevirtv1.MigrationPending, got.Status.Phase)

	id := virt.MigrateWorkflowID("m-1")
	var passed []virt.Transition
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for i, p := range []string{virt.PhasePending, virt.PhaseScheduling, virt.PhaseScheduled, virt.PhasePreparingTarget, virt.PhaseTargetReady, virt.PhaseRunning} {
		passed = append(passed, virt.Transition{Phase: p, At: at.Add(time.Duration(i) * time.Second)})
	}
	tc.memo[id] = virt.Progress{Phase: virt.PhaseRunning, Transitions: passed}
	got = reconcileAndRead(t, r, c)
	require.Equal(t, kubevirtv1.MigrationRunning, got.Status.Phase)
	require.Len(t, tc.started, 1, "started once")
	require.Len(t, got.Status.PhaseTransitionTimestamps, 6, "every phase the workflow passed, seen or not")
	require.Equal(t, at.Add(2*time.Second), got.Status.PhaseTransitionTimestamps[2].PhaseTransitionTimestamp.UTC(), "Scheduled, when the workflow entered it")

	passed = append(passed, virt.Transition{Phase: virt.PhaseSucceeded, At: at.Add(10 * time.Second)})
	tc.status[id], tc.memo[id] = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, virt.Progress{Phase: virt.PhaseSucceeded, Transitions: passed}
	vmi.Status.MigrationState = &kubevirtv1.VirtualMachineInstanceMigrationState{MigrationUID: "m-1", TargetNode: "node-2", Completed: true}
	require.NoError(t, c.Update(context.Background(), vmi))
	got = reconcileAndRead(t, r, c)
	require.Equal(t, kubevirtv1.MigrationSucceeded, got.Status.Phase)
	require.Equal(t, "node-2", got.Status.MigrationState.TargetNode, "the VMI's record of this migration")
	var phases []kubevirtv1.VirtualMachineInstanceMigrationPhase
	for _, p := range got.Status.PhaseTransitionTimestamps {
		phases = append(phases, p.Phase)
	}
	require.Equal(t, []kubevirtv1.VirtualMachineInstanceMigrationPhase{kubevirtv1.MigrationPending, kubevirtv1.MigrationScheduling,
		kubevirtv1.MigrationScheduled, kubevirtv1.MigrationPreparingTarget, kubevirtv1.MigrationTargetReady, kubevirtv1.MigrationRunning,
		kubevirtv1.MigrationSucceeded}, phases)
}

func TestAFailedOrCancelledWorkflowFailsTheMigrationAndAFinalPhaseStays(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "v-1"}}
	r, tc, c := world(t, vmim(), vmi)
	reconcileAndRead(t, r, c)
	id := virt.MigrateWorkflowID("m-1")
	tc.status[id] = enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED
	got := reconcileAndRead(t, r, c)
	require.Equal(t, kubevirtv1.MigrationFailed, got.Status.Phase)

	// Temporal forgot the run: the VMIM stays failed, nothing starts again.
	delete(tc.status, id)
	got = reconcileAndRead(t, r, c)
	require.Equal(t, kubevirtv1.MigrationFailed, got.Status.Phase)
	require.Len(t, tc.started, 1)
}

func TestAMigrationOfNoVMIFailsWithoutAWorkflow(t *testing.T) {
	r, tc, c := world(t, vmim())
	got := reconcileAndRead(t, r, c)
	require.Empty(t, tc.started)
	require.Equal(t, kubevirtv1.MigrationFailed, got.Status.Phase)
}

func TestDeletingARunningMigrationCancelsItsWorkflowAndWaits(t *testing.T) {
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "v-1"}}
	r, tc, c := world(t, vmim(), vmi)
	got := reconcileAndRead(t, r, c)
	require.NoError(t, c.Delete(context.Background(), got))
	got = reconcileAndRead(t, r, c)
	require.Equal(t, []string{virt.MigrateWorkflowID("m-1")}, tc.cancelled)
	require.Contains(t, got.Finalizers, kubevirtv1.VirtualMachineInstanceMigrationFinalizer, "kept until the workflow settled the copies")

	tc.status[virt.MigrateWorkflowID("m-1")] = enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: crclient.ObjectKey{Namespace: "ns", Name: "mig"}})
	require.NoError(t, err)
	err = c.Get(context.Background(), crclient.ObjectKey{Namespace: "ns", Name: "mig"}, got)
	require.True(t, crclient.IgnoreNotFound(err) == nil && err != nil, "the VMIM goes once its workflow ended")
}
