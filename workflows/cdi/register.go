package cdi

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/activities/storage"
)

// WorkflowRegistry is the part of a worker that workflows are registered on.
type WorkflowRegistry interface {
	// RegisterWorkflowWithOptions registers a workflow function under a name.
	RegisterWorkflowWithOptions(w interface{}, options workflow.RegisterOptions)
}

// ActivityRegistry is the part of a worker that activities are registered on.
type ActivityRegistry interface {
	// RegisterActivityWithOptions registers an activity function under a name.
	RegisterActivityWithOptions(a interface{}, options activity.RegisterOptions)
}

func importOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: ImportWorkflowName}
}

func uploadOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: UploadWorkflowName}
}

// RegisterWorkflows adds the CDI workflows to a control worker.
func RegisterWorkflows(r WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(ImportDataVolume, importOptions())
	r.RegisterWorkflowWithOptions(UploadDataVolume, uploadOptions())
	r.RegisterWorkflowWithOptions(PollDataImportCron, pollCronOptions())
	r.RegisterWorkflowWithOptions(CloneDataVolume, workflow.RegisterOptions{Name: CloneWorkflowName})
}

// RegisterNodeActivities adds the disk activities to a node's worker.
func RegisterNodeActivities(r ActivityRegistry, a *storage.Activities) {
	r.RegisterActivityWithOptions(a.ImportDisk, activity.RegisterOptions{Name: storage.ImportDiskName})
	r.RegisterActivityWithOptions(a.CleanupImport, activity.RegisterOptions{Name: storage.CleanupDiskName})
	r.RegisterActivityWithOptions(a.ReceiveUpload, activity.RegisterOptions{Name: storage.ReceiveUploadName})
	r.RegisterActivityWithOptions(a.CloneDisk, activity.RegisterOptions{Name: storage.CloneDiskName})
}
