package modifyvmtemplate

import (
	"context"

	"github.com/virtflow/virtflow/tasks/stepargs"
)

// cliOptions are upstream modify-vm-template's.
var cliOptions = []stepargs.Option{
	{Long: "template-name", Env: "TEMPLATE_NAME", Key: ParamTemplateName},
	{Long: "template-namespace", Env: "TEMPLATE_NAMESPACE", Key: ParamTemplateNamespace},
	{Long: "cpu-sockets", Env: "CPU_SOCKETS", Key: ParamCPUSockets},
	{Long: "cpu-cores", Env: "CPU_CORES", Key: ParamCPUCores},
	{Long: "cpu-threads", Env: "CPU_THREADS", Key: ParamCPUThreads},
	{Long: "memory", Env: "MEMORY", Key: ParamMemory},
	{Long: "template-labels", Key: ParamTemplateLabels, List: true},
	{Long: "template-annotations", Key: ParamTemplateAnnotations, List: true},
	{Long: "vm-labels", Key: ParamVMLabels, List: true},
	{Long: "vm-annotations", Key: ParamVMAnnotations, List: true},
	stepargs.Output,
	{Long: "disks", Key: ParamDisks, List: true},
	{Long: "volumes", Key: ParamVolumes, List: true},
	{Long: "datavolumeTemplates", Key: ParamDatavolumeTemplates, List: true},
	{Long: "templateParameters", Key: ParamTemplateParameters, List: true},
	{Long: "delete-datavolume-template", Env: "DELETE_DATAVOLUME_TEMPLATE", Key: ParamDeleteDatavolumeTemplate, Boolean: true},
	{Long: "delete-volumes", Env: "DELETE_VOLUMES", Key: ParamDeleteVolumes, Boolean: true},
	{Long: "delete-disks", Env: "DELETE_DISKS", Key: ParamDeleteDisks, Boolean: true},
	{Long: "delete-template-parameters", Env: "DELETE_TEMPLATE_PARAMETERS", Key: ParamDeleteTemplateParameters, Boolean: true},
	{Long: "delete-template", Env: "DELETE_TEMPLATE", Key: ParamDeleteTemplate, Boolean: true},
	stepargs.Debug,
}

// Main is the modify-vm-template step program: it reads upstream's
// environment variables and arguments, runs Task and prints the template
// as --output asks.
func Main(ctx context.Context, args []string) error {
	return stepargs.Run(ctx, cliOptions, args, modifyTemplate)
}
