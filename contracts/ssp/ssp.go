// Package ssp is the contract between the durable Tekton tasks' controller
// (the CustomRuns of DurableTask references), the SSP workflows that run
// the tasks, and the activity that runs one task of the catalog: type
// names, inputs, results, progress and the error types a retry cannot fix.
// It has no side effects.
package ssp

import "github.com/virtflow/virtflow/contracts/typed"

// Workflow type names; constants so that renaming a Go function never
// changes what recorded histories refer to.
const (
	// RunTektonTaskWorkflowName runs one task of the catalog, a
	// CustomRun's DurableTask.
	RunTektonTaskWorkflowName = "ssp.RunTektonTask"
	// RunTemplatePipelineWorkflowName creates a VM from a template, waits
	// for it to run, executes a command in it and cleans it up, as the
	// server-deployer Pipeline does.
	RunTemplatePipelineWorkflowName = "ssp.RunTemplatePipeline"
)

// The SSP workflows, typed, so that registering a function of another
// signature under their names does not compile.
var (
	RunTektonTaskWorkflow       = typed.Workflow[TaskRequest, TaskResult]{Name: RunTektonTaskWorkflowName}
	RunTemplatePipelineWorkflow = typed.Workflow[TemplatePipelineInput, TemplatePipelineResult]{Name: RunTemplatePipelineWorkflowName}
)

// RunTaskStepName is the activity type that runs one task of the catalog.
const RunTaskStepName = "ssp.RunTaskStep"

// RunTaskStep is the task activity, typed; see TaskActivities.
var RunTaskStep = typed.Activity[TaskRequest, TaskResult]{Name: RunTaskStepName}

// TaskQueue carries the workflows and the task activity: the control
// worker's queue.
const TaskQueue = "virtflow-control"

// What a PipelineTask's taskRef (and so a CustomRun's customRef) names to
// run a task durably: the name is the task's, as its Tekton Task is named.
const (
	APIVersion = "tasks.virtflow.io/v1alpha1"
	// KindDurableTask runs the named task of the catalog.
	KindDurableTask = "DurableTask"
	// KindDurablePipeline runs a pipeline of catalog tasks as one
	// workflow; TemplatePipelineName is the one there is.
	KindDurablePipeline = "DurablePipeline"
)

// TemplatePipelineName is the DurablePipeline run by
// RunTemplatePipelineWorkflowName. It takes the server-deployer Pipeline's
// params.
const TemplatePipelineName = "server-deployer"

// TaskWorkflowID is the workflow ID of a CustomRun, by its UID.
func TaskWorkflowID(uid string) string { return "ssp-task-" + uid }

// ProgressMemoKey is the memo field the controller reads a run's Progress
// from; ProgressQuery answers the same.
const (
	ProgressMemoKey = "progress"
	ProgressQuery   = "progress"
)

// Error types of failures a retry cannot fix.
const (
	// ErrTypeUnknownTask is a task name the catalog does not have.
	ErrTypeUnknownTask = "UnknownTask"
	// ErrTypeInvalidParams are params the task's declaration rejects
	// (missing, of the wrong type) or that cannot be passed at all.
	ErrTypeInvalidParams = "InvalidParams"
	// ErrTypeTaskFailed is the task's own failure, as its container
	// would have exited 1 with it; only failures to reach the API server
	// are retried.
	ErrTypeTaskFailed = "TaskFailed"
	// ErrTypeCustomRunMismatch is a request its CustomRun does not bear
	// out: no such CustomRun (or another UID), another task, service
	// account or params, or a run that has finished. Nothing runs.
	ErrTypeCustomRunMismatch = "CustomRunMismatch"
)

// Tekton's CustomRun, whose UID names the workflow serving it
// (TaskWorkflowID) and whose service account a task acts as.
const (
	CustomRunAPIVersion = "tekton.dev/v1beta1"
	CustomRunKind       = "CustomRun"
)

// DefaultServiceAccount is whom a run acts as when its CustomRun names no
// service account, as Tekton runs a TaskRun's pod.
const DefaultServiceAccount = "default"

// Params are a task's parameters by name, as a Task's string and array
// params.
type Params struct {
	Strings map[string]string   `json:"strings,omitempty"`
	Arrays  map[string][]string `json:"arrays,omitempty"`
}

// TaskRequest is one task to run.
type TaskRequest struct {
	// Task is the task's name, e.g. "create-vm-from-template".
	Task string `json:"task"`
	// Namespace is the active namespace: the CustomRun's, where the
	// task's namespace params default to.
	Namespace string `json:"namespace"`
	// ServiceAccount in Namespace is whom the task acts as, so that a
	// durable task can do no more than the same container task could.
	// The activity takes it from the CustomRun and refuses a request
	// that names another.
	ServiceAccount string `json:"serviceAccount"`
	// Params are the run's params; the ones it leaves out take the
	// Task's defaults.
	Params Params `json:"params"`
	// CustomRun and CustomRunUID name the CustomRun (in Namespace) the
	// workflow serves; its ID is TaskWorkflowID of that UID. Runs started
	// before requests named it leave them empty: the activity finds the
	// CustomRun by the workflow's ID.
	CustomRun    string `json:"customRun,omitempty"`
	CustomRunUID string `json:"customRunUID,omitempty"`
}

// TaskResult is what a task reports: its Tekton results by name.
type TaskResult struct {
	Results map[string]string `json:"results,omitempty"`
}

// Progress is a run's memo: the step running and what it last said.
type Progress struct {
	// Step is the task running, or StepCompleted / StepCleanup.
	Step string `json:"step"`
	// Message describes the step for the CustomRun's condition.
	Message string `json:"message,omitempty"`
	// Activity is the task activity's attempt while Step is a task, as
	// the activity signalled it (ProgressSignal). Runs started before the
	// workflows relayed it never set it.
	Activity *ActivityProgress `json:"activity,omitempty"`
}

// Steps beside the task names.
const (
	StepCompleted = "Completed"
	StepCleanup   = "CleaningUp"
)
