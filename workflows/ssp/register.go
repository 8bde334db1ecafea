package ssp

import (
	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/ssp"
	"github.com/virtflow/virtflow/contracts/typed"
)

// RegisterWorkflows adds the SSP workflows under their type names, bound
// through the contract's descriptors so that a workflow whose signature
// drifted from what starters send does not compile.
func RegisterWorkflows(r registry.Workflows) {
	typed.RegisterWorkflows(r,
		ssp.RunTektonTaskWorkflow.Bind(RunTektonTask),
		ssp.RunTemplatePipelineWorkflow.Bind(RunTemplatePipeline),
	)
}
