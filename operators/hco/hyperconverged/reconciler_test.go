package hyperconverged

import (
	"context"
	"errors"
	"strings"
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
	"google.golang.org/protobuf/types/known/timestamppb"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	hcov1beta1 "github.com/virtflow/virtflow/api/hco/v1beta1"
	"github.com/virtflow/virtflow/contracts/hco"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/workflowstate"
	"github.com/virtflow/virtflow/operands"
)

// fakeTemporal answers like a Temporal frontend: status is the install's,
// statuses the other executions'.
type fakeTemporal struct {
	status   enumspb.WorkflowExecutionStatus
	statuses map[string]enumspb.WorkflowExecutionStatus
	memo     *hco.InstallProgress
	failure  error
	// closedAgo is how long ago closed executions ended.
	closedAgo time.Duration
	started   []client.StartWorkflowOptions
	args      []interface{}
	canceled  []string
}

func (f *fakeTemporal) statusOf(id string) enumspb.WorkflowExecutionStatus {
	if strings.HasPrefix(id, "hco-install-") {
		return f.status
	}
	return f.statuses[id]
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	status := f.statusOf(id)
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
		return nil, serviceerror.NewNotFound("workflow " + id + " not found")
	}
	info := &workflowpb.WorkflowExecutionInfo{Status: status}
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		info.CloseTime = timestamppb.New(time.Now().Add(-f.closedAgo))
	}
	if f.memo != nil {
		p, err := converter.GetDefaultDataConverter().ToPayload(*f.memo)
		if err != nil {
			return nil, err
		}
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{hco.ProgressMemoKey: p}}
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}, nil
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ interface{}, args ...interface{}) (client.WorkflowRun, error) {
	f.started = append(f.started, o)
	f.args = append(f.args, args...)
	if strings.HasPrefix(o.ID, "hco-install-") {
		f.status = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	} else {
		if f.statuses == nil {
			f.statuses = map[string]enumspb.WorkflowExecutionStatus{}
		}
		f.statuses[o.ID] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	}
	return fakeRun{}, nil
}

func (f *fakeTemporal) GetWorkflowHistory(context.Context, string, string, bool, enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	panic("reconcilers read state with DescribeWorkflowExecution")
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
	return setupWith(t, fake.NewClientBuilder())
}

// setupWith is setup on a client built from b, which may hold nodes or
// intercept calls.
func setupWith(t *testing.T, b *fake.ClientBuilder) (*Reconciler, *fakeTemporal, crclient.Client, ctrl.Request) {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	hc := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", UID: "1234", Generation: 1,
	}}
	c := b.WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
	ft := &fakeTemporal{}
	r := &Reconciler{Client: c, Temporal: ft, TaskQueue: "virtflow-control", Recorder: record.NewFakeRecorder(100), Version: "v9", Namespace: "kubevirt-hyperconverged"}
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
	require.Equal(t, "1234", ft.args[0].(hco.InstallInput).HyperConverged.UID)
	hc := getHC(t, c, req)
	require.Contains(t, hc.Finalizers, Finalizer)
	require.True(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionProgressing))
}

func TestReconcileMirrorsInstallProgress(t *testing.T) {
	r, ft, c, req := setup(t)
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	ft.memo = &hco.InstallProgress{Step: hco.StepWaiting, Components: []hco.ComponentProgress{
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

	for _, d := range operands.Desired(getHC(t, c, req)) {
		markAvailable(t, c, operands.RefOf(d))
	}
	_, err = r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	hc := getHC(t, c, req)
	require.True(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionAvailable))
	require.True(t, meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1beta1.ConditionUpgradeable))
	require.Len(t, hc.Status.RelatedObjects, 4)
}

func markAvailable(t *testing.T, c crclient.Client, ref hco.ComponentRef) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(ref.APIVersion)
	obj.SetKind(ref.Kind)
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, obj))
	require.NoError(t, unstructured.SetNestedSlice(obj.Object, []interface{}{
		map[string]interface{}{"type": "Available", "status": "True", "reason": "AllComponentsReady"},
	}, "status", "conditions"))
	require.NoError(t, c.Update(context.Background(), obj))
}

func TestDeletionCancelsTheInstallThenUninstallsThenLetsGo(t *testing.T) {
	r, ft, c, req := setup(t)
	ctx := context.Background()
	_, err := r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, getHC(t, c, req)))
	res, err := r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.Equal(t, []string{"hco-install-1234"}, ft.canceled)
	require.NotZero(t, res.RequeueAfter, "waits for the install to unwind")
	require.Len(t, ft.started, 1, "no uninstall while the install unwinds")

	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.Len(t, ft.started, 2)
	require.Equal(t, "hco-uninstall-1234", ft.started[1].ID)
	in := ft.args[1].(hco.UninstallInput)
	require.Len(t, in.Components, 4, "every component the HyperConverged derives")
	require.Contains(t, getHC(t, c, req).Finalizers, Finalizer, "finalizer stays until the uninstall is done")

	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.Len(t, ft.started, 2, "a running uninstall is not started again")

	ft.statuses["hco-uninstall-1234"] = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.Error(t, c.Get(ctx, req.NamespacedName, &hcov1beta1.HyperConverged{}), "HyperConverged is gone")
}

// failedUninstall is an installed HyperConverged being deleted whose
// uninstall workflow failed.
func failedUninstall(t *testing.T) (*Reconciler, *fakeTemporal, crclient.Client, ctrl.Request) {
	t.Helper()
	r, ft, c, req := setup(t)
	ctx := context.Background()
	ft.status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	_, err := r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, getHC(t, c, req)))
	ft.statuses = map[string]enumspb.WorkflowExecutionStatus{"hco-uninstall-1234": enumspb.WORKFLOW_EXECUTION_STATUS_FAILED}
	ft.failure = errors.New("cdis.cdi.kubevirt.io is forbidden")
	return r, ft, c, req
}

func TestAFailedUninstallIsReportedAndKeepsTheHyperConverged(t *testing.T) {
	r, _, c, req := failedUninstall(t)
	ctx := context.Background()
	res, err := r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.NotZero(t, res.RequeueAfter)
	hc := getHC(t, c, req)
	degraded := meta.FindStatusCondition(hc.Status.Conditions, hcov1beta1.ConditionDegraded)
	require.Equal(t, metav1.ConditionTrue, degraded.Status)
	require.Equal(t, reasonUninstallFailed, degraded.Reason)
	require.Contains(t, degraded.Message, "forbidden")
	require.Contains(t, hc.Finalizers, Finalizer)
}

var _ runtime.Object = &hcov1beta1.HyperConverged{}

func TestAFailedUninstallIsStartedAgainAfterTheResync(t *testing.T) {
	r, ft, _, req := failedUninstall(t)
	ft.closedAgo = 2 * workflowstate.Resync
	_, err := r.Reconcile(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, ft.started, 1, "the install was already done; only the uninstall starts")
	require.Equal(t, "hco-uninstall-1234", ft.started[0].ID)
	require.Equal(t, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY, ft.started[0].WorkflowIDReusePolicy)
}

func TestAnotherHyperConvergedIsReportedAsAnInvalidRequest(t *testing.T) {
	for _, key := range []types.NamespacedName{
		{Namespace: "kubevirt-hyperconverged", Name: "second"},
		{Namespace: "default", Name: "kubevirt-hyperconverged"},
	} {
		t.Run(key.String(), func(t *testing.T) {
			r, ft, c, _ := setup(t)
			other := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, UID: "5678", Generation: 2}}
			require.NoError(t, c.Create(context.Background(), other))
			req := ctrl.Request{NamespacedName: key}
			res, err := r.Reconcile(context.Background(), req)
			require.NoError(t, err)
			require.Zero(t, res)
			require.Empty(t, ft.started, "nothing is installed for it")
			hc := getHC(t, c, req)
			require.Empty(t, hc.Finalizers)
			complete := meta.FindStatusCondition(hc.Status.Conditions, hcov1beta1.ConditionReconcileComplete)
			require.Equal(t, metav1.ConditionFalse, complete.Status)
			require.Equal(t, "InvalidRequest", complete.Reason)
			require.Equal(t, "Request does not match expected name (kubevirt-hyperconverged) and namespace (kubevirt-hyperconverged)", complete.Message)
			require.Equal(t, int64(2), complete.ObservedGeneration)
			for _, typ := range []string{hcov1beta1.ConditionAvailable, hcov1beta1.ConditionProgressing, hcov1beta1.ConditionDegraded, hcov1beta1.ConditionUpgradeable} {
				cond := meta.FindStatusCondition(hc.Status.Conditions, typ)
				require.Equal(t, metav1.ConditionUnknown, cond.Status, typ)
				require.Equal(t, "StatusUnknown", cond.Reason)
				require.Equal(t, "Unknown Status", cond.Message)
			}
		})
	}
}
