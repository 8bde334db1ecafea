package ssp

import (
	"go.temporal.io/sdk/workflow"

	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/ssp"
)

// RegisterWorkflows adds the SSP workflows under their type names.
func RegisterWorkflows(r registry.Workflows) {
	r.RegisterWorkflowWithOptions(RunTektonTask, workflow.RegisterOptions{Name: ssp.RunTektonTaskWorkflowName})
	r.RegisterWorkflowWithOptions(RunTemplatePipeline, workflow.RegisterOptions{Name: ssp.RunTemplatePipelineWorkflowName})
}
