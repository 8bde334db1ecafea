package dataimportcron

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/cdi"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/workflowstate"
)

// fakeSchedules holds at most one schedule, as Temporal would for one ID.
type fakeSchedules struct {
	client.ScheduleClient
	opts    *client.ScheduleOptions
	running []client.ScheduleWorkflowExecution
	updated []client.Schedule
	deleted bool
}

func (f *fakeSchedules) Create(_ context.Context, o client.ScheduleOptions) (client.ScheduleHandle, error) {
	f.opts = &o
	return &fakeHandle{f: f}, nil
}

func (f *fakeSchedules) GetHandle(context.Context, string) client.ScheduleHandle {
	return &fakeHandle{f: f}
}

type fakeHandle struct {
	client.ScheduleHandle
	f *fakeSchedules
}

// Describe answers as Temporal does: the action's memo comes back as
// payloads, and the spec as calendars rather than the expression.
func (h *fakeHandle) Describe(context.Context) (*client.ScheduleDescription, error) {
	if h.f.opts == nil || h.f.deleted {
		return nil, serviceerror.NewNotFound("schedule not found")
	}
	act := *h.f.opts.Action.(*client.ScheduleWorkflowAction)
	memo := map[string]interface{}{}
	for k, v := range act.Memo {
		p, err := converter.GetDefaultDataConverter().ToPayload(v)
		if err != nil {
			return nil, err
		}
		memo[k] = p
	}
	act.Memo = memo
	return &client.ScheduleDescription{
		Schedule: client.Schedule{Action: &act, Spec: &client.ScheduleSpec{}},
		Info:     client.ScheduleInfo{RunningWorkflows: h.f.running},
	}, nil
}

func (h *fakeHandle) Update(_ context.Context, o client.ScheduleUpdateOptions) error {
	desc, err := h.Describe(context.Background())
	if err != nil {
		return err
	}
	u, err := o.DoUpdate(client.ScheduleUpdateInput{Description: *desc})
	if err != nil {
		return err
	}
	h.f.updated = append(h.f.updated, *u.Schedule)
	return nil
}

func (h *fakeHandle) Delete(context.Context) error {
	h.f.deleted = true
	return nil
}

// fakeTemporal knows no poll runs and records cancellations.
type fakeTemporal struct {
	client.Client
	canceled []string
}

func (f *fakeTemporal) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return nil, serviceerror.NewNotFound(id)
}

func (f *fakeTemporal) CancelWorkflow(_ context.Context, id, _ string) error {
	f.canceled = append(f.canceled, id)
	return nil
}

func testCron() *cdiv1.DataImportCron {
	return &cdiv1.DataImportCron{
		ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "fedora-cron", UID: "uid-1"},
		Spec: cdiv1.DataImportCronSpec{
			ManagedDataSource: "fedora", Schedule: "0 */12 * * *",
			Template: cdiv1.DataVolume{Spec: cdiv1.DataVolumeSpec{
				Source: &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: "http://images/fedora.qcow2"}},
			}},
		},
	}
}

func newReconciler(t *testing.T, objs ...crclient.Object) (*Reconciler, *fakeSchedules, *fakeTemporal) {
	t.Helper()
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	s, tc := &fakeSchedules{}, &fakeTemporal{}
	return &Reconciler{Client: c, Temporal: tc, Schedules: s, TaskQueue: "virtflow-control", Recorder: record.NewFakeRecorder(100)}, s, tc
}

var cronKey = ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "golden", Name: "fedora-cron"}}

func TestNewCronGetsItsScheduleDataSourceAndFinalizer(t *testing.T) {
	r, s, _ := newReconciler(t, testCron())
	ctx := context.Background()
	res, err := r.Reconcile(ctx, cronKey)
	require.NoError(t, err)
	require.Equal(t, workflowstate.Resync, res.RequeueAfter, "woken by what it watches, resynced only as a safety net")

	require.NotNil(t, s.opts)
	require.Equal(t, "cdi-cron-uid-1", s.opts.ID)
	require.Equal(t, []string{"0 */12 * * *"}, s.opts.Spec.CronExpressions)
	require.True(t, s.opts.TriggerImmediately, "the first import starts right away")
	act := s.opts.Action.(*client.ScheduleWorkflowAction)
	require.Equal(t, cdi.PollCronWorkflowName, act.Workflow)
	require.Equal(t, "virtflow-control", act.TaskQueue)
	require.Equal(t, "cdi-cronpoll-uid-1", act.ID)
	require.Equal(t, []interface{}{cdi.PollCronInput{Namespace: "golden", Name: "fedora-cron", UID: "uid-1"}}, act.Args)

	ds := &cdiv1.DataSource{}
	require.NoError(t, r.Client.Get(ctx, types.NamespacedName{Namespace: "golden", Name: "fedora"}, ds))
	require.Equal(t, "fedora-cron", ds.Labels[cdi.LabelDataImportCron])
	cron := &cdiv1.DataImportCron{}
	require.NoError(t, r.Client.Get(ctx, cronKey.NamespacedName, cron))
	require.Contains(t, cron.Finalizers, Finalizer)
	require.Equal(t, cdiv1.DataImportCronSourceFormatPvc, *cron.Status.SourceFormat)
	require.Equal(t, ReasonNoDigest, cron.Status.Conditions[1].Reason)

	_, err = r.Reconcile(ctx, cronKey)
	require.NoError(t, err)
	require.Empty(t, s.updated, "an unchanged schedule is left alone")
}

func TestChangedScheduleIsUpdated(t *testing.T) {
	r, s, _ := newReconciler(t, testCron())
	ctx := context.Background()
	_, err := r.Reconcile(ctx, cronKey)
	require.NoError(t, err)
	cron := &cdiv1.DataImportCron{}
	require.NoError(t, r.Client.Get(ctx, cronKey.NamespacedName, cron))
	cron.Spec.Schedule = "*/5 * * * *"
	require.NoError(t, r.Client.Update(ctx, cron))

	_, err = r.Reconcile(ctx, cronKey)
	require.NoError(t, err)
	require.Len(t, s.updated, 1)
	require.Equal(t, []string{"*/5 * * * *"}, s.updated[0].Spec.CronExpressions)
}

func TestDeletionWithRetainNoneRemovesScheduleAndImports(t *testing.T) {
	cron := testCron()
	none := cdiv1.DataImportCronRetainNone
	cron.Spec.RetentionPolicy = &none
	cron.Finalizers = []string{Finalizer}
	label := map[string]string{cdi.LabelDataImportCron: "fedora-cron"}
	dv := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "fedora-111111111111", Labels: label}}
	other := &cdiv1.DataVolume{ObjectMeta: metav1.ObjectMeta{Namespace: "golden", Name: "unrelated"}}
	r, s, tc := newReconciler(t, cron, dv, other)
	ctx := context.Background()
	_, err := r.Reconcile(ctx, cronKey)
	require.NoError(t, err)
	s.running = []client.ScheduleWorkflowExecution{{WorkflowID: "cdi-cronpoll-uid-1-2025-01-01T00:00:00Z"}}
	require.NoError(t, r.Client.Delete(ctx, cron))

	_, err = r.Reconcile(ctx, cronKey)
	require.NoError(t, err)
	require.True(t, s.deleted)
	require.Equal(t, []string{"cdi-cronpoll-uid-1-2025-01-01T00:00:00Z"}, tc.canceled)
	list := &cdiv1.DataVolumeList{}
	require.NoError(t, r.Client.List(ctx, list))
	require.Len(t, list.Items, 1)
	require.Equal(t, "unrelated", list.Items[0].Name)
	require.Error(t, r.Client.Get(ctx, types.NamespacedName{Namespace: "golden", Name: "fedora"}, &cdiv1.DataSource{}))
	require.Error(t, r.Client.Get(ctx, cronKey.NamespacedName, &cdiv1.DataImportCron{}), "the finalizer is gone")
}

func cronDV(name, digest string, minute int, phase cdiv1.DataVolumePhase) cdiv1.DataVolume {
	return cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "golden", Name: name, Annotations: map[string]string{cdi.AnnSourceDesiredDigest: digest},
			CreationTimestamp: metav1.NewTime(time.Date(2025, 1, 1, 0, minute, 0, 0, time.UTC)),
		},
		Status: cdiv1.DataVolumeStatus{Phase: phase},
	}
}

func TestStatusFollowsTheNewestImportAndTheDataSource(t *testing.T) {
	cron := testCron()
	now := time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC)
	ds := &cdiv1.DataSource{Spec: cdiv1.DataSourceSpec{Source: cdiv1.DataSourceSource{PVC: &cdiv1.DataVolumeSourcePVC{Namespace: "golden", Name: "fedora-old"}}}}
	old := cronDV("fedora-old", "etag:1", 1, cdiv1.Succeeded)

	st := Status(cron, Observed{DataVolumes: []cdiv1.DataVolume{cronDV("fedora-new", "etag:2", 2, cdiv1.ImportInProgress), old}, DataSource: ds}, now)
	require.Equal(t, []cdiv1.ImportStatus{{DataVolumeName: "fedora-new", Digest: "etag:2"}}, st.CurrentImports)
	require.Equal(t, "fedora-old", st.LastImportedPVC.Name)
	require.Equal(t, now, st.LastImportTimestamp.Time)
	require.Equal(t, corev1.ConditionTrue, st.Conditions[0].Status)
	require.Equal(t, ReasonProgressing, st.Conditions[0].Reason)
	require.Equal(t, corev1.ConditionFalse, st.Conditions[1].Status)

	st = Status(cron, Observed{DataVolumes: []cdiv1.DataVolume{old}, DataSource: ds}, now)
	require.Equal(t, corev1.ConditionFalse, st.Conditions[0].Status)
	require.Equal(t, ReasonNoImport, st.Conditions[0].Reason)
	require.Equal(t, corev1.ConditionTrue, st.Conditions[1].Status)
	require.Equal(t, ReasonUpToDate, st.Conditions[1].Reason)

	failed := cronDV("fedora-bad", "etag:3", 3, cdiv1.Failed)
	st = Status(cron, Observed{DataVolumes: []cdiv1.DataVolume{failed, old}, DataSource: ds}, now)
	require.Equal(t, string(cdiv1.Failed), st.Conditions[0].Reason)
	require.Equal(t, ReasonOutdated, st.Conditions[1].Reason)
	require.Equal(t, "fedora-old", st.LastImportedPVC.Name, "a failed import leaves the DataSource on the last good one")
}

// The cron's lastExecutionTimestamp is the time its last poll recorded on
// it, as upstream's lastCronTime annotation.
func TestLastExecutionIsTheRecordedPollTime(t *testing.T) {
	cron := testCron()
	cron.Annotations = map[string]string{cdi.AnnLastCronTime: "2026-11-23T09:01:00Z"}
	r, _, _ := newReconciler(t, cron)
	ctx := context.Background()
	_, err := r.Reconcile(ctx, cronKey)
	require.NoError(t, err)
	got := &cdiv1.DataImportCron{}
	require.NoError(t, r.Client.Get(ctx, cronKey.NamespacedName, got))
	require.Equal(t, time.Date(2026, 11, 23, 9, 1, 0, 0, time.UTC), got.Status.LastExecutionTimestamp.UTC())
}
