package datavolume

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/cdi"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// fakeTemporal holds one execution per ID, by status, and records starts
// and cancellations.
type fakeTemporal struct {
	client.Client
	status    map[string]enumspb.WorkflowExecutionStatus
	memo      map[string]cdi.ImportProgress
	started   []cdi.ImportInput
	cancelled []string
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	s, ok := f.status[id]
	if !ok {
		return nil, serviceerror.NewNotFound(id)
	}
	info := &workflowpb.WorkflowExecutionInfo{Status: s}
	if p, ok := f.memo[id]; ok {
		payload, err := converter.GetDefaultDataConverter().ToPayload(p)
		if err != nil {
			return nil, err
		}
		info.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{cdi.ProgressMemoKey: payload}}
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: info}, nil
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, typ interface{}, args ...interface{}) (client.WorkflowRun, error) {
	f.status[o.ID] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	f.started = append(f.started, args[0].(cdi.ImportInput))
	return nil, nil
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.cancelled = append(f.cancelled, id)
	return nil
}

var dvKey = types.NamespacedName{Namespace: "vms", Name: "dv"}

func importDV() *cdiv1.DataVolume {
	return &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: dvKey.Namespace, Name: dvKey.Name, UID: "dv-uid"},
		Spec: cdiv1.DataVolumeSpec{
			Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://images/disk.img"}},
			PVC: &corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}}
}

// bindClaim plays the provisioner: a node-local volume on node-1.
func bindClaim(t *testing.T, r *Reconciler) {
	t.Helper()
	ctx := context.Background()
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/vols/pv-1"}},
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}}}}}}},
	}}
	require.NoError(t, r.Client.Create(ctx, pv))
	pvc := &corev1.PersistentVolumeClaim{}
	require.NoError(t, r.Client.Get(ctx, dvKey, pvc))
	pvc.Spec.VolumeName = "pv-1"
	require.NoError(t, r.Client.Update(ctx, pvc))
	pvc.Status.Phase = corev1.ClaimBound
	require.NoError(t, r.Client.Status().Update(ctx, pvc))
}

func reconcileDV(t *testing.T, r *Reconciler) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: dvKey})
	require.NoError(t, err)
	return res
}

// A DataVolume's claim is bound before its import starts, on the claim's
// node; deleting it cancels the import and waits for it to stop.
func TestImportStartsOnceTheClaimIsBoundAndStopsBeforeTheDataVolumeGoes(t *testing.T) {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(importDV()).WithStatusSubresource(&cdiv1.DataVolume{}).Build()
	tc := &fakeTemporal{status: map[string]enumspb.WorkflowExecutionStatus{}}
	r := &Reconciler{Client: c, Temporal: tc, TaskQueue: "virtflow-control", Recorder: record.NewFakeRecorder(100)}
	ctx := context.Background()

	require.NotZero(t, reconcileDV(t, r).RequeueAfter, "looks again while the claim binds")
	require.Empty(t, tc.started)
	dv := &cdiv1.DataVolume{}
	require.NoError(t, c.Get(ctx, dvKey, dv))
	require.Contains(t, dv.Finalizers, Finalizer)
	require.Equal(t, cdiv1.Pending, dv.Status.Phase)

	bindClaim(t, r)
	require.Equal(t, workflowstate.Resync, reconcileDV(t, r).RequeueAfter)
	reconcileDV(t, r)
	require.Len(t, tc.started, 1, "started once")
	in := tc.started[0]
	require.Equal(t, "node-1", in.Node)
	require.Equal(t, "/var/vols/pv-1", in.Request.VolumeDir)
	require.Equal(t, "http://images/disk.img", in.Request.Source.URL)
	require.NoError(t, c.Get(ctx, dvKey, dv))
	require.Equal(t, cdiv1.ImportScheduled, dv.Status.Phase)

	tc.memo = map[string]cdi.ImportProgress{cdi.ImportWorkflowID("dv-uid"): {Step: cdi.StepImporting,
		Activity: &cdi.ActivityProgress{Name: cdi.ImportDiskName, Attempt: 2, Percent: 12.5, LastFailure: "connection reset by peer"}}}
	reconcileDV(t, r)
	require.NoError(t, c.Get(ctx, dvKey, dv))
	require.Equal(t, cdiv1.ImportInProgress, dv.Status.Phase, "the memo's disk activity shows")
	require.Equal(t, cdiv1.DataVolumeProgress("12.50%"), dv.Status.Progress)
	require.Equal(t, int32(1), dv.Status.RestartCount)
	require.Equal(t, "connection reset by peer", dv.Status.Conditions[2].Message)

	require.NoError(t, c.Delete(ctx, dv))
	require.Equal(t, workflowstate.Resync, reconcileDV(t, r).RequeueAfter, "waits for the import to clean up")
	require.Equal(t, []string{cdi.ImportWorkflowID("dv-uid")}, tc.cancelled)
	tc.status[cdi.ImportWorkflowID("dv-uid")] = enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED
	reconcileDV(t, r)
	require.True(t, apierrors.IsNotFound(c.Get(ctx, dvKey, &cdiv1.DataVolume{})), "gone once its import stopped")
}
