//go:build integration

package integration

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	sspc "github.com/virtflow/virtflow/contracts/ssp"
)

// TestDurableGoldenImagePipelineRunSucceeds runs the README's durable
// example: the golden-image steps as DurableTasks, each a workflow that
// completed, beside virt-customize's pod.
func TestDurableGoldenImagePipelineRunSucceeds(t *testing.T) {
	n := onNode(t)
	run := createExample(t, n, "examples/pipelines/golden-image-durable-run.yaml")
	pr := succeeded(t, n, pipelineRunGVK, pipelinesNS, run, 15*time.Minute)
	dv := runResults(pr)["dataVolumeName"]
	require.NotEmpty(t, dv)
	t.Cleanup(func() { _ = n.kubectl("delete", "datavolume", "-n", pipelinesNS, dv).Run() })

	for _, task := range []string{"modify-data-object", "create-vm-from-manifest", "wait-for-vmi-status", "execute-in-vm", "cleanup-vm"} {
		cr := childRun(t, n, customRunGVK, pipelinesNS, run, task, time.Second)
		status, reason, msg := succeededCondition(cr)
		require.Equal(t, "True", status, "%s: %s: %s", task, reason, msg)
		desc, err := n.tc.DescribeWorkflowExecution(context.Background(), sspc.TaskWorkflowID(string(cr.GetUID())), "")
		require.NoError(t, err, task)
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status, task)
		require.Equal(t, sspc.RunTektonTaskWorkflowName, desc.WorkflowExecutionInfo.Type.Name)
	}
	customize := childRun(t, n, taskRunGVK, pipelinesNS, run, "disk-virt-customize", time.Second)
	status, _, _ := succeededCondition(customize)
	require.Equal(t, "True", status, "virt-customize ran as a pod")
}

// TestDurableTemplatePipelineSurvivesAKilledWorker runs the server-deployer
// steps as one ssp.RunTemplatePipeline workflow and kills the control
// worker with SIGKILL while the command runs in the guest: the step is
// retried on the restarted worker, no step before it runs again, and the
// VM is cleaned up once.
func TestDurableTemplatePipelineSurvivesAKilledWorker(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	sa := pipelineAccount(t, n, "durable-deployer", "create-vm-from-template-task", "wait-for-vmi-status-task", "execute-in-vm-task", "cleanup-vm-task")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: pipelinesNS, Name: "durable-deployer-console"}, StringData: map[string]string{"type": "console"}}
	require.NoError(t, n.c.Create(ctx, secret))
	t.Cleanup(func() { _ = n.c.Delete(ctx, secret) })
	cr := customRun(t, n, sspc.KindDurablePipeline, sspc.TemplatePipelineName, sa, []any{
		map[string]any{"name": "secretName", "value": secret.Name},
		map[string]any{"name": "command", "value": []any{"sh", "-c", "sleep 15; cat /proc/version"}},
	})
	id := sspc.TaskWorkflowID(string(cr.GetUID()))
	ended := false
	require.Eventually(t, func() bool {
		desc, err := n.tc.DescribeWorkflowExecution(ctx, id, "")
		if err == nil && desc.WorkflowExecutionInfo.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			ended = true
			return true
		}
		if err != nil || len(desc.PendingActivities) == 0 {
			return false
		}
		var p sspc.Progress
		val, err := n.tc.QueryWorkflow(ctx, id, "", sspc.ProgressQuery)
		return err == nil && val.Get(&p) == nil && p.Step == "execute-in-vm"
	}, 5*time.Minute, 200*time.Millisecond, "the pipeline never reached execute-in-vm")
	if ended {
		_, reason, msg := runCondition(t, n, customRunGVK, pipelinesNS, cr.GetName(), &unstructured.Unstructured{}, time.Minute)
		require.FailNow(t, "the pipeline ended before execute-in-vm", "%s: %s", reason, msg)
	}
	time.Sleep(3 * time.Second) // inside the command's sleep
	worker := labelledPods(t, n.c, "app.kubernetes.io/name", "virtflow-worker")["virtflow-worker"]
	require.NoError(t, syscall.Kill(podProcess(t, worker, []string{"/usr/bin/virtflow", "control-worker"}), syscall.SIGKILL))

	done := &unstructured.Unstructured{}
	status, reason, msg := runCondition(t, n, customRunGVK, pipelinesNS, cr.GetName(), done, 8*time.Minute)
	require.Equal(t, "True", status, "%s: %s", reason, msg)
	desc, err := n.tc.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.WorkflowExecutionInfo.Status)
	require.Equal(t, 4, activityCount(t, n.tc, id, sspc.RunTaskStepName), "create, wait, execute and clean up, each scheduled once")
	attempt, _ := lastAttempt(t, n.tc, id)
	require.GreaterOrEqual(t, attempt, int32(2), "the step the kill interrupted ran again")
	require.Len(t, vmsNamed(t, n, runResults(done)["vmName"]), 0, "cleanup-vm deleted the VM")
}

// TestCancellingAPipelineRunCancelsItsWorkflows cancels a PipelineRun
// whose durable task waits for a VMI that never comes: Tekton cancels the
// CustomRun, and its workflow ends cancelled.
func TestCancellingAPipelineRunCancelsItsWorkflows(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	pr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tekton.dev/v1", "kind": "PipelineRun",
		"metadata": map[string]any{"namespace": pipelinesNS, "generateName": "cancelled-"},
		"spec": map[string]any{
			"taskRunTemplate": map[string]any{"serviceAccountName": "wait-for-vmi-status-task"},
			"pipelineSpec": map[string]any{"tasks": []any{map[string]any{
				"name":    "wait",
				"taskRef": map[string]any{"apiVersion": sspc.APIVersion, "kind": sspc.KindDurableTask, "name": "wait-for-vmi-status"},
				"params": []any{
					map[string]any{"name": "vmiName", "value": "never-created"},
					map[string]any{"name": "successCondition", "value": "status.phase == Running"},
				},
			}}},
		},
	}}
	require.NoError(t, n.c.Create(ctx, pr))
	t.Cleanup(func() { _ = n.c.Delete(ctx, pr) })
	cr := childRun(t, n, customRunGVK, pipelinesNS, pr.GetName(), "wait", 2*time.Minute)
	id := sspc.TaskWorkflowID(string(cr.GetUID()))
	require.Eventually(t, func() bool {
		desc, err := n.tc.DescribeWorkflowExecution(ctx, id, "")
		return err == nil && len(desc.PendingActivities) > 0
	}, 2*time.Minute, 200*time.Millisecond, "the durable task never started")

	patch := []byte(`{"spec":{"status":"Cancelled"}}`)
	require.NoError(t, n.c.Patch(ctx, pr, crclient.RawPatch(types.MergePatchType, patch)))
	done := &unstructured.Unstructured{}
	status, reason, _ := runCondition(t, n, customRunGVK, pipelinesNS, cr.GetName(), done, 2*time.Minute)
	require.Equal(t, "False", status)
	require.Equal(t, "CustomRunCancelled", reason)
	desc, err := n.tc.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, desc.WorkflowExecutionInfo.Status)
	status, reason, _ = runCondition(t, n, pipelineRunGVK, pipelinesNS, pr.GetName(), done, 2*time.Minute)
	require.Equal(t, "False", status)
	require.Equal(t, "Cancelled", reason)
}

// pipelineAccount is a service account in virtflow-pipelines bound to the
// ClusterRoles of the given task service accounts.
func pipelineAccount(t *testing.T, n *upRun, name string, roles ...string) string {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: pipelinesNS, Name: name}}
	require.NoError(t, n.c.Create(ctx, sa))
	t.Cleanup(func() { _ = n.c.Delete(ctx, sa) })
	for _, role := range roles {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: pipelinesNS, Name: name + "-" + role},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: pipelinesNS, Name: name}}}
		require.NoError(t, n.c.Create(ctx, rb))
		t.Cleanup(func() { _ = n.c.Delete(ctx, rb) })
	}
	return name
}

// customRun creates a CustomRun of a durable kind, as a PipelineRun would.
func customRun(t *testing.T, n *upRun, kind, name, sa string, params []any) *unstructured.Unstructured {
	t.Helper()
	cr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tekton.dev/v1beta1", "kind": "CustomRun",
		"metadata": map[string]any{"namespace": pipelinesNS, "generateName": name + "-"},
		"spec": map[string]any{
			"customRef":          map[string]any{"apiVersion": sspc.APIVersion, "kind": kind, "name": name},
			"serviceAccountName": sa, "params": params,
		},
	}}
	require.NoError(t, n.c.Create(context.Background(), cr))
	t.Cleanup(func() { _ = n.c.Delete(context.Background(), cr) })
	return cr
}

// vmsNamed lists the VMs of virtflow-pipelines with a name.
func vmsNamed(t *testing.T, n *upRun, name string) []string {
	t.Helper()
	out, err := n.kubectl("get", "vm", "-n", pipelinesNS, "--ignore-not-found", name, "-o", "name").Output()
	require.NoError(t, err)
	if len(out) == 0 {
		return nil
	}
	return []string{string(out)}
}

// TestBadInputToTasksFailsSayingWhy gives a container task a template that
// does not exist and a durable task a param of the wrong shape and one
// missing: each run fails at once with a message a user can act on.
func TestBadInputToTasksFailsSayingWhy(t *testing.T) {
	n := onNode(t)
	missing := taskRun(t, n, "create-vm-from-template", map[string]any{"templateName": "no-such-template", "templateNamespace": "openshift"})
	wrongShape := customRun(t, n, sspc.KindDurableTask, "wait-for-vmi-status", "wait-for-vmi-status-task", []any{
		map[string]any{"name": "vmiName", "value": []any{"a", "b"}},
	})
	noName := customRun(t, n, sspc.KindDurableTask, "wait-for-vmi-status", "wait-for-vmi-status-task", nil)

	got := &unstructured.Unstructured{}
	status, _, _ := runCondition(t, n, taskRunGVK, pipelinesNS, missing, got, 3*time.Minute)
	require.Equal(t, "False", status)
	pod, _, _ := unstructured.NestedString(got.Object, "status", "podName")
	logs, _ := n.kubectl("logs", "-n", pipelinesNS, pod, "-c", "step-createvm").CombinedOutput()
	require.Contains(t, string(logs), `"no-such-template" not found`)

	status, _, msg := runCondition(t, n, customRunGVK, pipelinesNS, wrongShape.GetName(), got, time.Minute)
	require.Equal(t, "False", status)
	require.Contains(t, msg, "param types don't match the user-specified type: [vmiName]")
	status, _, msg = runCondition(t, n, customRunGVK, pipelinesNS, noName.GetName(), got, time.Minute)
	require.Equal(t, "False", status)
	require.Contains(t, msg, "missing values for these params which have no default values: [vmiName]")
}
