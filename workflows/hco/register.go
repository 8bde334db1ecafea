package hco

import (
	"github.com/virtflow/virtflow/contracts/hco"
	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
)

// RegisterWorkflows adds the HCO workflows under their type names, bound
// through the contract's descriptors so that a workflow whose signature
// drifted from what starters send does not compile.
func RegisterWorkflows(r registry.Workflows) {
	typed.RegisterWorkflows(r,
		hco.InstallWorkflow.Bind(InstallHyperConverged),
		hco.UninstallWorkflow.Bind(UninstallHyperConverged),
	)
}
