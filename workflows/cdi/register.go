package cdi

import (
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/registry"
)

// RegisterWorkflows adds the CDI workflows under their type names.
func RegisterWorkflows(r registry.Workflows) {
	r.RegisterWorkflowWithOptions(ImportDataVolume, workflow.RegisterOptions{Name: cdi.ImportWorkflowName})
	r.RegisterWorkflowWithOptions(UploadDataVolume, workflow.RegisterOptions{Name: cdi.UploadWorkflowName})
	r.RegisterWorkflowWithOptions(CloneDataVolume, workflow.RegisterOptions{Name: cdi.CloneWorkflowName})
	r.RegisterWorkflowWithOptions(PollDataImportCron, workflow.RegisterOptions{Name: cdi.PollCronWorkflowName})
}
