package cdi

import (
	"github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
)

// RegisterWorkflows adds the CDI workflows under their type names, bound
// through the contract's descriptors so that a workflow whose signature
// drifted from what starters send does not compile.
func RegisterWorkflows(r registry.Workflows) {
	typed.RegisterWorkflows(r,
		cdi.ImportWorkflow.Bind(ImportDataVolume),
		cdi.UploadWorkflow.Bind(UploadDataVolume),
		cdi.CloneWorkflow.Bind(CloneDataVolume),
		cdi.PollCronWorkflow.Bind(PollDataImportCron),
	)
}
