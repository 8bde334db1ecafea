package ssp

import (
	"errors"
	"fmt"
	"maps"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/ssp"
)

// RunTemplatePipeline is the server-deployer Pipeline as one workflow:
// create-vm-from-template, wait-for-vmi-status, execute-in-vm, and finally
// cleanup-vm of the VM created, whether the tasks between succeeded,
// failed or were cancelled. Each task is one activity, so a task that
// completed is not run again when a worker dies. A cancellation while the
// VM is being created leaves no name to clean up, as the Pipeline's
// finally task is skipped when create-vm-from-template reported nothing.
func RunTemplatePipeline(ctx workflow.Context, in ssp.TemplatePipelineInput) (ssp.TemplatePipelineResult, error) {
	p, err := newProgress(ctx)
	if err != nil {
		return ssp.TemplatePipelineResult{}, err
	}
	pl := &pipeline{in: in, progress: p, res: ssp.TemplatePipelineResult{Results: map[string]map[string]string{}}}
	if err := pl.run(ctx, ssp.TaskCreateVMFromTemplate, in.CreateVM); err != nil {
		return pl.res, err
	}
	created := pl.res.Results[ssp.TaskCreateVMFromTemplate]
	pl.res.VMName, pl.res.VMNamespace = created[ssp.ResultName], created[ssp.ResultNamespace]
	if pl.res.VMName == "" {
		return pl.res, temporal.NewNonRetryableApplicationError(
			ssp.TaskCreateVMFromTemplate+" reported no VM name", ssp.ErrTypeTaskFailed, nil)
	}
	err = pl.run(ctx, ssp.TaskWaitForVMIStatus, pl.vm(in.WaitForVMI, ssp.ParamVMIName, ssp.ParamVMINamespace))
	if err == nil {
		err = pl.run(ctx, ssp.TaskExecuteInVM, pl.vm(in.ExecuteInVM, ssp.ParamVMName, ssp.ParamVMNamespace))
	}
	return pl.res, pl.cleanUp(ctx, err)
}

// pipeline is one run of the template pipeline: its input, its progress
// and what its tasks reported so far.
type pipeline struct {
	in       ssp.TemplatePipelineInput
	progress *progress
	res      ssp.TemplatePipelineResult
}

// run runs one task, recording its results. A failure names the task; a
// cancellation stays one, so the workflow ends cancelled.
func (pl *pipeline) run(ctx workflow.Context, task string, params ssp.Params) error {
	if err := pl.progress.task(ctx, task); err != nil {
		return err
	}
	req := ssp.TaskRequest{Task: task, Namespace: pl.in.Namespace, ServiceAccount: pl.in.ServiceAccount, Params: params,
		CustomRun: pl.in.CustomRun, CustomRunUID: pl.in.CustomRunUID}
	act := workflow.WithActivityOptions(ctx, taskOptions())
	out, err := ssp.RunTaskStep.Execute(act, req)
	if err != nil {
		return taskFailure(task, err)
	}
	pl.res.Results[task] = out.Results
	return nil
}

// cleanUp runs cleanup-vm on the VM created, on a disconnected context
// when the run was cancelled, so that cancelling still cleans up. The
// run's own outcome stands unless the cleanup fails too.
func (pl *pipeline) cleanUp(ctx workflow.Context, runErr error) error {
	cancelled := errors.Is(ctx.Err(), workflow.ErrCanceled)
	if cancelled {
		ctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	err := pl.run(ctx, ssp.TaskCleanupVM, pl.vm(pl.in.CleanupVM, ssp.ParamVMName, ssp.ParamVMNamespace))
	switch {
	case err != nil && runErr != nil && !cancelled:
		return temporal.NewNonRetryableApplicationError(message(runErr)+"; "+message(err), ssp.ErrTypeTaskFailed, nil)
	case err != nil:
		return err
	case runErr != nil:
		return runErr
	}
	return pl.progress.completed(ctx,
		fmt.Sprintf("VM %s/%s was created, ran and was cleaned up", pl.res.VMNamespace, pl.res.VMName))
}

// vm is params naming the VM created in the string params nameParam and
// namespaceParam, as the Pipeline passes create-vm-from-template's results
// on.
func (pl *pipeline) vm(params ssp.Params, nameParam, namespaceParam string) ssp.Params {
	out := ssp.Params{Strings: maps.Clone(params.Strings), Arrays: params.Arrays}
	if out.Strings == nil {
		out.Strings = map[string]string{}
	}
	out.Strings[nameParam], out.Strings[namespaceParam] = pl.res.VMName, pl.res.VMNamespace
	return out
}

// taskFailure is a task's failure with the task named, keeping its error
// type; the controller shows the innermost message, which is this one.
func taskFailure(task string, err error) error {
	var cancelled *temporal.CanceledError
	if errors.As(err, &cancelled) {
		return err
	}
	typ := ssp.ErrTypeTaskFailed
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		typ = app.Type()
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("task %s failed: %s", task, message(err)), typ, nil)
}

// message is an error's innermost application message, without the
// activity and workflow wrappers around it.
func message(err error) string {
	msg := err.Error()
	for u := err; u != nil; u = errors.Unwrap(u) {
		if app, ok := u.(*temporal.ApplicationError); ok {
			msg = app.Message()
		}
	}
	return msg
}
