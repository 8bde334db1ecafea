package hco

import (
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/registry"
)

// RegisterWorkflows adds the HCO workflows under their type names.
func RegisterWorkflows(r registry.Workflows) {
	r.RegisterWorkflowWithOptions(InstallHyperConverged, workflow.RegisterOptions{Name: hco.InstallWorkflowName})
	r.RegisterWorkflowWithOptions(UninstallHyperConverged, workflow.RegisterOptions{Name: hco.UninstallWorkflowName})
}
