//go:build integration

package integration

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"

	sspc "github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/typed"
)

// scriptedTasks is the durable tasks' one activity, answering per task.
func scriptedTasks(by map[string]func(context.Context) (sspc.TaskResult, error)) func(context.Context, sspc.TaskRequest) (sspc.TaskResult, error) {
	return func(ctx context.Context, req sspc.TaskRequest) (sspc.TaskResult, error) {
		return by[req.Task](ctx)
	}
}

// sspPathRuns are the durable tasks' runs: a task and the template
// pipeline, each completed, failed and cancelled (the pipeline's failed
// and cancelled runs still clean up their VM).
func sspPathRuns() []pathRun {
	ok := func(context.Context) (sspc.TaskResult, error) { return sspc.TaskResult{}, nil }
	vm := func(context.Context) (sspc.TaskResult, error) {
		return sspc.TaskResult{Results: map[string]string{sspc.ResultName: "vm1", sspc.ResultNamespace: "vms"}}, nil
	}
	fail := func(msg string) func(context.Context) (sspc.TaskResult, error) {
		return func(context.Context) (sspc.TaskResult, error) {
			return sspc.TaskResult{}, nonRetryable(msg, sspc.ErrTypeTaskFailed)
		}
	}
	blocked := func(ctx context.Context) (sspc.TaskResult, error) { return sspc.TaskResult{}, untilCancelled(ctx) }
	task := sspc.TaskRequest{Task: sspc.TaskCreateVMFromTemplate, Namespace: "vms", ServiceAccount: "create-vm-from-template-task",
		Params: sspc.Params{Strings: map[string]string{"templateName": "fedora-server-small"}, Arrays: map[string][]string{"templateParams": {"NAME:vm1"}}}}
	pipeline := sspc.TemplatePipelineInput{Namespace: "vms", ServiceAccount: "pipeline", CreateVM: task.Params,
		WaitForVMI:  sspc.Params{Strings: map[string]string{"successCondition": "status.phase == Running"}},
		ExecuteInVM: sspc.Params{Strings: map[string]string{"secretName": "console"}, Arrays: map[string][]string{"command": {"uname", "-a"}}},
		CleanupVM:   sspc.Params{Strings: map[string]string{"delete": "true"}}}
	taskIn := func(string) any { return task }
	pipelineIn := func(string) any { return pipeline }
	step := func(by map[string]func(context.Context) (sspc.TaskResult, error)) []typed.ActivityBinding {
		return []typed.ActivityBinding{sspc.RunTaskStep.Bind(scriptedTasks(by))}
	}
	const dir = "workflows/ssp/testdata/"
	return []pathRun{
		{file: dir + "task_completed.json", workflow: sspc.RunTektonTaskWorkflowName, input: taskIn,
			activities: step(map[string]func(context.Context) (sspc.TaskResult, error){sspc.TaskCreateVMFromTemplate: vm}),
			want:       enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED},
		{file: dir + "task_failed.json", workflow: sspc.RunTektonTaskWorkflowName, input: taskIn,
			activities: step(map[string]func(context.Context) (sspc.TaskResult, error){
				sspc.TaskCreateVMFromTemplate: fail(`templates.template.openshift.io "fedora-server-small" not found`)}),
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED},
		{file: dir + "task_cancelled.json", workflow: sspc.RunTektonTaskWorkflowName, input: taskIn,
			activities: step(map[string]func(context.Context) (sspc.TaskResult, error){sspc.TaskCreateVMFromTemplate: blocked}),
			cancelAt:   sspc.RunTaskStepName, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED},
		{file: dir + "pipeline_completed.json", workflow: sspc.RunTemplatePipelineWorkflowName, input: pipelineIn,
			activities: step(map[string]func(context.Context) (sspc.TaskResult, error){
				sspc.TaskCreateVMFromTemplate: vm, sspc.TaskWaitForVMIStatus: ok, sspc.TaskExecuteInVM: ok, sspc.TaskCleanupVM: ok}),
			want: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, steps: 4},
		{file: dir + "pipeline_failed.json", workflow: sspc.RunTemplatePipelineWorkflowName, input: pipelineIn,
			activities: step(map[string]func(context.Context) (sspc.TaskResult, error){
				sspc.TaskCreateVMFromTemplate: vm, sspc.TaskCleanupVM: ok,
				sspc.TaskWaitForVMIStatus: fail("vmi vms/vm1 failed: status.phase in (Failed, Unknown) matched")}),
			want: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, steps: 3},
		// Cancelled during execute-in-vm, the third step; cleanup-vm is the
		// fourth.
		{file: dir + "pipeline_cancelled.json", workflow: sspc.RunTemplatePipelineWorkflowName, input: pipelineIn,
			activities: step(map[string]func(context.Context) (sspc.TaskResult, error){
				sspc.TaskCreateVMFromTemplate: vm, sspc.TaskWaitForVMIStatus: ok, sspc.TaskExecuteInVM: blocked, sspc.TaskCleanupVM: ok}),
			cancelAt: sspc.RunTaskStepName, cancelAtCount: 3, want: enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, steps: 4},
	}
}
