// Package cdi is the contract between CDI's controllers, the CDI workflows
// and the activities they run (disk activities on a node's task queue,
// DataImportCron activities on the control one): type names, inputs,
// results, progress, and the error types a retry cannot fix. It has no side
// effects.
package cdi

import "github.com/virtflow/virtflow/contracts/typed"

// Workflow type names; constants so that renaming a Go function never
// changes what recorded histories refer to.
const (
	ImportWorkflowName   = "cdi.ImportDataVolume"
	UploadWorkflowName   = "cdi.UploadDataVolume"
	CloneWorkflowName    = "cdi.CloneDataVolume"
	PollCronWorkflowName = "cdi.PollDataImportCron"
)

// The CDI workflows, typed, so that registering a function of another
// signature under their names does not compile.
var (
	ImportWorkflow   = typed.Workflow[ImportInput, ImportResult]{Name: ImportWorkflowName}
	UploadWorkflow   = typed.Workflow[ImportInput, ImportResult]{Name: UploadWorkflowName}
	CloneWorkflow    = typed.Workflow[CloneInput, ImportResult]{Name: CloneWorkflowName}
	PollCronWorkflow = typed.Workflow[PollCronInput, CronProgress]{Name: PollCronWorkflowName}
)

// ImportWorkflowID is the import workflow's ID for a DataVolume UID.
func ImportWorkflowID(uid string) string { return "cdi-import-" + uid }

// UploadWorkflowID is the upload workflow's ID for a DataVolume UID.
func UploadWorkflowID(uid string) string { return "cdi-upload-" + uid }

// CloneWorkflowID is the clone workflow's ID for a DataVolume UID.
func CloneWorkflowID(uid string) string { return "cdi-clone-" + uid }

// CronScheduleID is the Temporal schedule of a DataImportCron UID.
func CronScheduleID(uid string) string { return "cdi-cron-" + uid }

// CronWorkflowID is the ID the schedule gives its poll workflows; Temporal
// appends each action's time to it.
func CronWorkflowID(uid string) string { return "cdi-cronpoll-" + uid }

// NodeTaskQueuePrefix begins every node's task queue; Temporal's
// authorizer lets node workers poll these queues only.
const NodeTaskQueuePrefix = "virtflow-node-"

// NodeTaskQueue is the task queue of a node's worker, where node-local
// disk activities run.
func NodeTaskQueue(node string) string { return NodeTaskQueuePrefix + node }

// ProgressMemoKey is the memo field the reconcilers read a workflow's step
// from.
const ProgressMemoKey = "progress"

// Import, upload and clone steps, in order.
const (
	StepImporting = "Importing"
	StepCleanup   = "CleaningUp"
	StepCompleted = "Completed"
)

// ImportInput is one DataVolume to fill on one node, by import or upload.
type ImportInput struct {
	// DataVolume is namespace/name, for the Web UI and logs.
	DataVolume string `json:"dataVolume"`
	// Node holds the volume; the data path runs on its task queue.
	Node    string        `json:"node"`
	Request ImportRequest `json:"request"`
}

// CloneInput is one host-assisted clone on the node holding both volumes.
type CloneInput struct {
	DataVolume string       `json:"dataVolume"`
	Node       string       `json:"node"`
	Request    CloneRequest `json:"request"`
}

// ImportProgress is an import's, upload's or clone's memo, the one place
// the reconcilers read its progress from.
type ImportProgress struct {
	Step        string `json:"step"`
	Format      string `json:"format,omitempty"`
	VirtualSize int64  `json:"virtualSize,omitempty"`
	ResumedFrom int64  `json:"resumedFrom,omitempty"`
	// Activity is the disk activity's progress while Step is
	// StepImporting, as the activity signalled it (ProgressSignal). Runs
	// started before the workflow relayed progress never set it.
	Activity *ActivityProgress `json:"activity,omitempty"`
}
