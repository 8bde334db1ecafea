package ssp

// The tasks RunTemplatePipeline chains, by their Task names.
const (
	TaskCreateVMFromTemplate = "create-vm-from-template"
	TaskWaitForVMIStatus     = "wait-for-vmi-status"
	TaskExecuteInVM          = "execute-in-vm"
	TaskCleanupVM            = "cleanup-vm"
)

// The params and results RunTemplatePipeline passes from one task to the
// next, by their Task YAML names.
const (
	// ResultName and ResultNamespace are create-vm-from-template's
	// results: the VM it created.
	ResultName      = "name"
	ResultNamespace = "namespace"
	// ParamVMIName and ParamVMINamespace are wait-for-vmi-status's.
	ParamVMIName      = "vmiName"
	ParamVMINamespace = "vmiNamespace"
	// ParamVMName and ParamVMNamespace are execute-in-vm's and
	// cleanup-vm's.
	ParamVMName      = "vmName"
	ParamVMNamespace = "vmNamespace"
)

// TemplatePipelineInput is one run of the template pipeline: each task's
// own params, all run in Namespace as ServiceAccount. The VM the first task
// creates is what the others name; RunTemplatePipeline sets those params.
type TemplatePipelineInput struct {
	Namespace      string `json:"namespace"`
	ServiceAccount string `json:"serviceAccount"`
	// CustomRun and CustomRunUID name the CustomRun the run serves, as a
	// TaskRequest's; each task's request carries them.
	CustomRun    string `json:"customRun,omitempty"`
	CustomRunUID string `json:"customRunUID,omitempty"`
	// CreateVM are create-vm-from-template's params.
	CreateVM Params `json:"createVM"`
	// WaitForVMI are wait-for-vmi-status's, but the VMI's name and
	// namespace.
	WaitForVMI Params `json:"waitForVMI"`
	// ExecuteInVM are execute-in-vm's, but the VM's name and namespace.
	ExecuteInVM Params `json:"executeInVM"`
	// CleanupVM are cleanup-vm's, but the VM's name and namespace.
	CleanupVM Params `json:"cleanupVM"`
}

// TemplatePipelineResult names the VM the pipeline created (and cleaned up)
// and what each task reported.
type TemplatePipelineResult struct {
	VMName      string `json:"vmName,omitempty"`
	VMNamespace string `json:"vmNamespace,omitempty"`
	// Results are each task's results, by task name.
	Results map[string]map[string]string `json:"results,omitempty"`
}
