package virt

import (
	"github.com/virtflow/virtflow/contracts/registry"
	"github.com/virtflow/virtflow/contracts/typed"
	"github.com/virtflow/virtflow/contracts/virt"
)

// RegisterWorkflows adds the KubeVirt workflows under their type names.
func RegisterWorkflows(r registry.Workflows) {
	typed.RegisterWorkflows(r, virt.MigrateWorkflow.Bind(MigrateVirtualMachineInstance))
}
