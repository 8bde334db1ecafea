package volumepopulator

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
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/cdi"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

// fakeTemporal holds one workflow per ID, by status, and records starts.
type fakeTemporal struct {
	client.Client
	status  map[string]enumspb.WorkflowExecutionStatus
	pending map[string]string
	memo    map[string]cdi.ImportProgress
	started []cdi.ImportInput
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	s, ok := f.status[id]
	if !ok {
		return nil, serviceerror.NewNotFound(id)
	}
	resp := &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: s}}
	if a := f.pending[id]; a != "" {
		resp.PendingActivities = []*workflowpb.PendingActivityInfo{{ActivityType: &commonpb.ActivityType{Name: a}, Attempt: 1}}
	}
	if p, ok := f.memo[id]; ok {
		payload, err := converter.GetDefaultDataConverter().ToPayload(p)
		if err != nil {
			return nil, err
		}
		resp.WorkflowExecutionInfo.Memo = &commonpb.Memo{Fields: map[string]*commonpb.Payload{cdi.ProgressMemoKey: payload}}
	}
	return resp, nil
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ interface{}, args ...interface{}) (client.WorkflowRun, error) {
	f.status[o.ID] = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	f.started = append(f.started, args[0].(cdi.ImportInput))
	return nil, nil
}

const (
	ns        = "vms"
	primeKey  = "prime-target-uid"
	wfID      = "cdi-import-target-uid"
	classname = "hostpath-csi"
)

func fixtures() []crclient.Object {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: classname},
		Provisioner: "kubevirt.io.hostpath-provisioner", VolumeBindingMode: &wffc}
	src := &cdiv1.VolumeImportSource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "src"},
		Spec: cdiv1.VolumeImportSourceSpec{Source: &cdiv1.ImportSourceType{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://images/disk.img"}}}}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "target", UID: "target-uid",
			Annotations: map[string]string{AnnImmediateBinding: ""}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(classname),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			DataSourceRef:    &corev1.TypedObjectReference{APIGroup: ptr.To("cdi.kubevirt.io"), Kind: "VolumeImportSource", Name: "src"},
		},
	}
	return []crclient.Object{sc, src, pvc}
}

func newReconciler(t *testing.T, objs ...crclient.Object) (*Reconciler, *fakeTemporal) {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	tc := &fakeTemporal{status: map[string]enumspb.WorkflowExecutionStatus{}, pending: map[string]string{}, memo: map[string]cdi.ImportProgress{}}
	return &Reconciler{Client: c, Temporal: tc, TaskQueue: "virtflow-control", Recorder: record.NewFakeRecorder(100)}, tc
}

var targetReq = ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "target"}}

func get[T crclient.Object](t *testing.T, r *Reconciler, name string, obj T) T {
	t.Helper()
	require.NoError(t, r.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, obj))
	return obj
}

func reconcileTarget(t *testing.T, r *Reconciler) {
	t.Helper()
	_, err := r.Reconcile(context.Background(), targetReq)
	require.NoError(t, err)
}
