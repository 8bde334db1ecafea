package customrun

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/ssp"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
)

const (
	ns    = "pipelines"
	uid   = "run-uid"
	wfID  = "ssp-task-run-uid"
	start = "2026-11-24T10:00:00Z"
)

// customRun is a CustomRun as Tekton's pipeline controller creates it for
// a PipelineTask with the given taskRef.
func customRun(kind, name string, spec map[string]any) *unstructured.Unstructured {
	s := map[string]any{
		"customRef": map[string]any{"apiVersion": ssp.APIVersion, "kind": kind, "name": name},
		"params": []any{
			map[string]any{"name": "templateName", "value": "fedora-server-small"},
			map[string]any{"name": "templateParams", "value": []any{"NAME:vm1", "DESCRIPTION:x"}},
		},
		"serviceAccountName": "", "timeout": "1h0m0s",
	}
	for k, v := range spec {
		s[k] = v
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": s}}
	u.SetGroupVersionKind(GVK)
	u.SetNamespace(ns)
	u.SetName("deploy-create-vm")
	u.SetUID(uid)
	return u
}

type harness struct {
	t   *testing.T
	r   *Reconciler
	tc  *fakeTemporal
	now time.Time
}

func newHarness(t *testing.T, objs ...crclient.Object) *harness {
	t.Helper()
	s, err := kubescheme.New()
	require.NoError(t, err)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(GVK, meta.RESTScopeNamespace)
	c := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(mapper).WithObjects(objs...).WithStatusSubresource(objs...).Build()
	now, err := time.Parse(time.RFC3339, start)
	require.NoError(t, err)
	h := &harness{t: t, tc: newFakeTemporal(t), now: now}
	h.r = &Reconciler{Client: c, Temporal: h.tc, Recorder: record.NewFakeRecorder(100), Now: func() time.Time { return h.now }}
	return h
}

func (h *harness) reconcile() ctrl.Result {
	h.t.Helper()
	res, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "deploy-create-vm"}})
	require.NoError(h.t, err)
	return res
}

// get reads the CustomRun back.
func (h *harness) get() (*unstructured.Unstructured, run) {
	h.t.Helper()
	u := newObject()
	require.NoError(h.t, h.r.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "deploy-create-vm"}, u))
	cr, err := decode(u)
	require.NoError(h.t, err)
	return u, cr
}

func (h *harness) condition() condition {
	h.t.Helper()
	_, cr := h.get()
	require.Len(h.t, cr.Status.Conditions, 1)
	return cr.Status.Conditions[0]
}

func (h *harness) setSpec(field string, value any) {
	h.t.Helper()
	u, _ := h.get()
	require.NoError(h.t, unstructured.SetNestedField(u.Object, value, "spec", field))
	require.NoError(h.t, h.r.Client.Update(context.Background(), u))
}

func TestStartsTheTasksWorkflowOnceAsTheServiceAccount(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "create-vm-from-template", nil))
	res := h.reconcile()
	h.reconcile()

	require.Len(t, h.tc.started, 1)
	s := h.tc.started[0]
	require.Equal(t, wfID, s.opts.ID)
	require.Equal(t, "virtflow-control", s.opts.TaskQueue)
	require.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, s.opts.WorkflowIDConflictPolicy)
	require.Equal(t, ssp.RunTektonTaskWorkflowName, s.typ)
	require.Equal(t, ssp.TaskRequest{Task: "create-vm-from-template", Namespace: ns, ServiceAccount: "default", Params: ssp.Params{
		Strings: map[string]string{"templateName": "fedora-server-small"},
		Arrays:  map[string][]string{"templateParams": {"NAME:vm1", "DESCRIPTION:x"}},
	}, CustomRun: "deploy-create-vm", CustomRunUID: "run-uid"}, s.input, "the request names its CustomRun")

	u, cr := h.get()
	require.Contains(t, u.GetFinalizers(), Finalizer)
	require.Equal(t, h.now.Unix(), cr.Status.StartTime.Unix())
	require.Nil(t, cr.Status.CompletionTime)
	c := h.condition()
	require.Equal(t, condition{Type: "Succeeded", Status: "Unknown", Reason: "Running", Message: "Running create-vm-from-template", LastTransitionTime: c.LastTransitionTime}, c)
	require.Equal(t, time.Minute, res.RequeueAfter, "a running run is looked at again")
}

func TestRunningRunShowsItsProgressAndRetries(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "wait-for-vmi-status", map[string]any{"serviceAccountName": "wait-for-vmi-status-task"}))
	h.reconcile()
	require.Equal(t, "wait-for-vmi-status-task", h.tc.started[0].input.(ssp.TaskRequest).ServiceAccount)
	h.tc.progress[wfID] = ssp.Progress{Step: "wait-for-vmi-status", Message: "Running task wait-for-vmi-status"}
	h.reconcile()
	require.Equal(t, "Running task wait-for-vmi-status", h.condition().Message)
}

func TestSucceededRunReportsItsResultsAndLetsGo(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "create-vm-from-template", nil))
	h.reconcile()
	first := h.condition().LastTransitionTime
	h.now = h.now.Add(90 * time.Second)
	h.tc.progress[wfID] = ssp.Progress{Step: ssp.StepCompleted, Message: "Task create-vm-from-template completed"}
	h.tc.finish(wfID, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, ssp.TaskResult{Results: map[string]string{"namespace": "vms", "name": "vm1"}}, nil)
	res := h.reconcile()

	u, cr := h.get()
	c := cr.Status.Conditions[0]
	require.Equal(t, "True", c.Status)
	require.Equal(t, "Succeeded", c.Reason)
	require.Equal(t, "Task create-vm-from-template completed", c.Message)
	require.NotEqual(t, first, c.LastTransitionTime)
	require.Equal(t, []result{{Name: "name", Value: "vm1"}, {Name: "namespace", Value: "vms"}}, cr.Status.Results)
	require.Equal(t, h.now.Unix(), cr.Status.CompletionTime.Unix())
	require.NotContains(t, u.GetFinalizers(), Finalizer)
	require.Zero(t, res.RequeueAfter)

	delete(h.tc.status, wfID)
	h.reconcile()
	require.Len(t, h.tc.started, 1, "a done run is not run again, even once its history is gone")
}

func TestFailedRunCarriesTheTasksMessage(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "create-vm-from-template", nil))
	h.reconcile()
	h.tc.finish(wfID, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, nil,
		temporal.NewNonRetryableApplicationError(`templates.template.openshift.io "fedora-server-small" not found`, ssp.ErrTypeTaskFailed, nil))
	h.reconcile()
	c := h.condition()
	require.Equal(t, "False", c.Status)
	require.Equal(t, "Failed", c.Reason)
	require.Equal(t, `templates.template.openshift.io "fedora-server-small" not found`, c.Message)
}

func TestCancelledRunStopsItsWorkflowThenSaysSo(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "create-vm-from-template", nil))
	h.reconcile()
	h.setSpec("status", "RunCancelled")
	h.setSpec("statusMessage", "CustomRun cancelled as the PipelineRun it belongs to has been cancelled.")
	h.reconcile()
	require.Equal(t, []string{wfID}, h.tc.cancelled)
	c := h.condition()
	require.Equal(t, "Unknown", c.Status, "running until the workflow has stopped")
	require.Contains(t, c.Message, "Cancelling")

	h.tc.finish(wfID, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, nil, errors.New("canceled"))
	h.reconcile()
	c = h.condition()
	require.Equal(t, "False", c.Status)
	require.Equal(t, "CustomRunCancelled", c.Reason)
	require.Equal(t, `CustomRun "deploy-create-vm" was cancelled. CustomRun cancelled as the PipelineRun it belongs to has been cancelled.`, c.Message)
	require.Len(t, h.tc.started, 1)
}

func TestRunCancelledBeforeItStartedNeverStarts(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "create-vm-from-template", map[string]any{"status": "RunCancelled"}))
	h.reconcile()
	require.Empty(t, h.tc.started)
	require.Equal(t, "CustomRunCancelled", h.condition().Reason)
}

func TestTimedOutRunIsCancelledAndSaysItTimedOut(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "wait-for-vmi-status", map[string]any{"timeout": "10m0s"}))
	h.reconcile()
	h.now = h.now.Add(9*time.Minute + 30*time.Second)
	res := h.reconcile()
	require.Empty(t, h.tc.cancelled)
	require.Equal(t, 31*time.Second, res.RequeueAfter, "woken when the timeout passes")

	h.now = h.now.Add(time.Minute)
	h.reconcile()
	require.Equal(t, []string{wfID}, h.tc.cancelled)
	h.tc.finish(wfID, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, nil, errors.New("canceled"))
	h.reconcile()
	c := h.condition()
	require.Equal(t, "False", c.Status)
	require.Equal(t, "CustomRunTimedOut", c.Reason)
	require.Equal(t, `CustomRun "deploy-create-vm" failed to finish within "10m0s"`, c.Message)
}

func TestOtherCustomTasksAreLeftAlone(t *testing.T) {
	other := customRun("Wait", "", nil)
	require.NoError(t, unstructured.SetNestedField(other.Object, "wait.testing.tekton.dev/v1beta1", "spec", "customRef", "apiVersion"))
	h := newHarness(t, other)
	h.reconcile()
	u, cr := h.get()
	require.Empty(t, h.tc.started)
	require.Empty(t, u.GetFinalizers())
	require.Empty(t, cr.Status.Conditions)
	require.False(t, isOurs(other))
	require.True(t, isOurs(customRun(ssp.KindDurableTask, "x", nil)))
}

func TestRunThatCannotRunFailsWithoutAWorkflow(t *testing.T) {
	for name, tc := range map[string]struct {
		kind, task string
		spec       map[string]any
		message    string
	}{
		"object param": {ssp.KindDurableTask, "create-vm-from-template", map[string]any{"params": []any{map[string]any{"name": "o", "value": map[string]any{"k": "v"}}}},
			"param o: only string and array params can be passed to a durable task"},
		"no name":          {ssp.KindDurableTask, "", nil, "a durable task is referenced by name (taskRef.name); embedded specs are not supported"},
		"unknown pipeline": {ssp.KindDurablePipeline, "golden-image", nil, `no durable pipeline "golden-image": the durable pipelines are server-deployer`},
		"pipeline without its secret": {ssp.KindDurablePipeline, "server-deployer", nil,
			"pipeline server-deployer: missing values for these params which have no default values: [secretName]"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, customRun(tc.kind, tc.task, tc.spec))
			h.reconcile()
			require.Empty(t, h.tc.started)
			c := h.condition()
			require.Equal(t, "False", c.Status)
			require.Equal(t, "Failed", c.Reason)
			require.Equal(t, tc.message, c.Message)
		})
	}
}

func TestDeletedRunStopsItsWorkflowBeforeItGoes(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurableTask, "create-vm-from-template", nil))
	h.reconcile()
	u, _ := h.get()
	require.NoError(t, h.r.Client.Delete(context.Background(), u))
	h.reconcile()
	require.Equal(t, []string{wfID}, h.tc.cancelled)
	u, _ = h.get()
	require.Contains(t, u.GetFinalizers(), Finalizer)

	h.tc.finish(wfID, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, nil, errors.New("canceled"))
	h.reconcile()
	err := h.r.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "deploy-create-vm"}, newObject())
	require.True(t, crclient.IgnoreNotFound(err) == nil && err != nil, "gone once the workflow stopped: %v", err)
}

func TestServerDeployerRunsAsTheTemplatePipeline(t *testing.T) {
	h := newHarness(t, customRun(ssp.KindDurablePipeline, ssp.TemplatePipelineName, map[string]any{"params": []any{
		map[string]any{"name": "vmName", "value": "vm1"},
		map[string]any{"name": "secretName", "value": "console"},
	}}))
	h.reconcile()
	require.Len(t, h.tc.started, 1)
	require.Equal(t, ssp.RunTemplatePipelineWorkflowName, h.tc.started[0].typ)
	in := h.tc.started[0].input.(ssp.TemplatePipelineInput)
	require.Equal(t, ns, in.Namespace)
	require.Equal(t, []string{"deploy-create-vm", "run-uid"}, []string{in.CustomRun, in.CustomRunUID}, "the run names its CustomRun")
	require.Equal(t, map[string]string{"templateName": "virtflow-test-guest-server-small", "templateNamespace": "openshift", "runStrategy": "Always"}, in.CreateVM.Strings)
	require.Equal(t, []string{"NAME:vm1"}, in.CreateVM.Arrays["templateParams"])
	require.Equal(t, []string{"uname", "-a"}, in.ExecuteInVM.Arrays["command"])
	require.Equal(t, "console", in.ExecuteInVM.Strings["secretName"])
	require.Equal(t, "true", in.CleanupVM.Strings["delete"])

	h.tc.finish(wfID, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, ssp.TemplatePipelineResult{VMName: "vm1", VMNamespace: ns}, nil)
	h.reconcile()
	_, cr := h.get()
	require.Equal(t, []result{{Name: "vmName", Value: "vm1"}, {Name: "vmNamespace", Value: ns}}, cr.Status.Results)
}
