package hco

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	acts "github.com/virtflow/virtflow/activities/hco"
	"github.com/virtflow/virtflow/activities/kube"
	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	wf "github.com/virtflow/virtflow/workflows/hco"
)

// fakeTemporal answers like a Temporal frontend holding at most one run.
type fakeTemporal struct {
	status   enumspb.WorkflowExecutionStatus
	memo     *wf.InstallProgress
	failure  error
	started  []client.StartWorkflowOptions
	args     []interface{}
	canceled []string
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	if f.status == enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
		return nil, serviceerror.NewNotFound("workflow " + id + " not found")
	}
	info := &workflowpb.WorkflowExecutionInfo{Status: f.status}
	if f.memo != nil {
		p, err := converter.GetDefaultDataConverter().ToPayload(*f.memo)
		if err != nil {
			return nil, err
		}
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{wf.ProgressMemoKey: p}}
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}, nil
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ interface{}, args ...interface{}) (client.WorkflowRun, error) {
	f.started = append(f.started, o)
	f.args = append(f.args, args...)
	f.status = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	return fakeRun{}, nil
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.canceled = append(f.canceled, id)
	return nil
}

func (f *fakeTemporal) GetWorkflow(context.Context, string, string) client.WorkflowRun {
	return fakeRun{err: f.failure}
}

type fakeRun struct{ err error }

func (fakeRun) GetID() string                            { return "id" }
func (fakeRun) GetRunID() string                         { return "run" }
func (fakeRun) GetFirstExecutionRunID() string           { return "run" }
func (r fakeRun) Get(context.Context, interface{}) error { return r.err }
func (r fakeRun) GetWithOptions(context.Context, interface{}, client.WorkflowRunGetOptions) error {
	return r.err
}

func setup(t *testing.T) (*Reconciler, *fakeTemporal, crclient.Client, ctrl.Request) {
	t.Helper()
	scheme, err := kube.NewScheme()
	require.NoError(t, err)
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "1234", Generation: 1,
	}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
	ft := &fakeTemporal{}
	r := &Reconciler{Client: c, Temporal: ft, TaskQueue: "virtflow-control", Recorder: record.NewFakeRecorder(100), Version: "v9"}
	return r, ft, c, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: hc.Namespace, Name: hc.Name}}
}

func getHC(t *testing.T, c crclient.Client, req ctrl.Request) *hcov1beta1.HyperConverged {
	hc := &hcov1beta1.HyperConverged{}
	require.NoError(t, c.Get(context.Background(), req.NamespacedName, hc))
	return hc
}

func TestReconcileStartsTheInstallOnceWithTheUIDDerivedID(t *testing.T) {
	r, ft, c, req := setup(t)
	for i := 0; i < 3; i++ {
		res, err := r.Reconcile(context.Background(), req)
		require.NoError(t, err)
		require.NotZero(t, res.RequeueAfter, "requeues while the install runs")
	}
	require.Len(t, ft.started, 1)
	require.Equal(t, "hco-install-1234", ft.started[0].ID)
	require.Equal(t, "virtflow-control", ft.started[0].TaskQueue)
	require.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, ft.started[0].WorkflowIDConflictPolicy)
	require.Equal(t, "1234", ft.args[0].(wf.InstallInput).HyperConverged.UID)
	hc := getHC(t, c, req)
	require.Contains(t, hc.Finalizers, Finalizer)
	require.True(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionProgressing))
}

func TestReconcileMirrorsInstallProgress(t *testing.T) {
	r, ft, c, req := setup(t)
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	ft.memo = &wf.InstallProgress{Step: wf.StepWaiting, Components: []wf.ComponentProgress{
		{Kind: "KubeVirt", Available: true}, {Kind: "CDI", Available: true}, {Kind: "SSP"}, {Kind: "NetworkAddonsConfig"},
	}}
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	avail := meta.FindStatusCondition(getHC(t, c, req).Status.Conditions, hcov1beta1.ConditionAvailable)
	require.Equal(t, metav1.ConditionFalse, avail.Status)
	require.Contains(t, avail.Message, "WaitingForComponents, 2 of 4 components available")
	require.Empty(t, ft.started, "an existing run is not started again")
}

func TestReconcileReportsAFailedInstall(t *testing.T) {
	r, ft, c, req := setup(t)
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_FAILED
	ft.failure = errors.New("waiting for CDI: cdi-apiserver does not answer its health check")
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	hc := getHC(t, c, req)
	degraded := meta.FindStatusCondition(hc.Status.Conditions, hcov1beta1.ConditionDegraded)
	require.Equal(t, metav1.ConditionTrue, degraded.Status)
	require.Equal(t, reasonInstallFailed, degraded.Reason)
	require.Contains(t, degraded.Message, "cdi-apiserver does not answer its health check")
	require.False(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable))
}

func TestInstalledHyperConvergedAggregatesComponentConditions(t *testing.T) {
	r, ft, c, req := setup(t)
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	avail := meta.FindStatusCondition(getHC(t, c, req).Status.Conditions, hcov1beta1.ConditionAvailable)
	require.Equal(t, metav1.ConditionFalse, avail.Status, "components exist but report nothing yet")
	require.Equal(t, "KubeVirtNotAvailable", avail.Reason)

	for _, d := range acts.DesiredComponents(getHC(t, c, req)) {
		markAvailable(t, c, acts.RefOf(d))
	}
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	hc := getHC(t, c, req)
	require.True(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable))
	require.True(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionUpgradeable))
	require.Len(t, hc.Status.RelatedObjects, 4)
}

func markAvailable(t *testing.T, c crclient.Client, ref acts.ComponentRef) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(ref.APIVersion)
	obj.SetKind(ref.Kind)
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, obj))
	require.NoError(t, unstructured.SetNestedSlice(obj.Object, []interface{}{
		map[string]interface{}{"type": "Available", "status": "True", "reason": "AllComponentsReady"},
	}, "status", "conditions"))
	require.NoError(t, c.Update(context.Background(), obj))
}

func TestDeletionCancelsTheRunningInstallBeforeRemovingComponents(t *testing.T) {
	r, ft, c, req := setup(t)
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.NoError(t, c.Delete(context.Background(), getHC(t, c, req)))
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, []string{"hco-install-1234"}, ft.canceled)
	require.Contains(t, getHC(t, c, req).Finalizers, Finalizer, "finalizer stays until the workflow has unwound")

	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Error(t, c.Get(context.Background(), req.NamespacedName, &hcov1beta1.HyperConverged{}), "HyperConverged is gone")
}

var _ runtime.Object = &hcov1beta1.HyperConverged{}
