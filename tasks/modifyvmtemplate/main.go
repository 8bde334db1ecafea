package modifyvmtemplate

import (
	"context"
	"fmt"
	"os"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Keys of the step's own options, which are no Task parameters.
const (
	keyOutput = "output"
	keyDebug  = "debug"
)

// cliOptions are upstream modify-vm-template's.
var cliOptions = []option{
	{long: "template-name", env: "TEMPLATE_NAME", key: ParamTemplateName},
	{long: "template-namespace", env: "TEMPLATE_NAMESPACE", key: ParamTemplateNamespace},
	{long: "cpu-sockets", env: "CPU_SOCKETS", key: ParamCPUSockets},
	{long: "cpu-cores", env: "CPU_CORES", key: ParamCPUCores},
	{long: "cpu-threads", env: "CPU_THREADS", key: ParamCPUThreads},
	{long: "memory", env: "MEMORY", key: ParamMemory},
	{long: "template-labels", key: ParamTemplateLabels, list: true},
	{long: "template-annotations", key: ParamTemplateAnnotations, list: true},
	{long: "vm-labels", key: ParamVMLabels, list: true},
	{long: "vm-annotations", key: ParamVMAnnotations, list: true},
	{long: "output", short: "o", key: keyOutput},
	{long: "disks", key: ParamDisks, list: true},
	{long: "volumes", key: ParamVolumes, list: true},
	{long: "datavolumeTemplates", key: ParamDatavolumeTemplates, list: true},
	{long: "templateParameters", key: ParamTemplateParameters, list: true},
	{long: "delete-datavolume-template", env: "DELETE_DATAVOLUME_TEMPLATE", key: ParamDeleteDatavolumeTemplate, boolean: true},
	{long: "delete-volumes", env: "DELETE_VOLUMES", key: ParamDeleteVolumes, boolean: true},
	{long: "delete-disks", env: "DELETE_DISKS", key: ParamDeleteDisks, boolean: true},
	{long: "delete-template-parameters", env: "DELETE_TEMPLATE_PARAMETERS", key: ParamDeleteTemplateParameters, boolean: true},
	{long: "delete-template", env: "DELETE_TEMPLATE", key: ParamDeleteTemplate, boolean: true},
	{long: "debug", key: keyDebug, boolean: true},
}

// Main is the modify-vm-template step program: it reads upstream's
// environment variables and arguments, runs Task and prints the template
// as --output asks.
func Main(ctx context.Context, args []string) error {
	params, output, err := stepParams(args)
	if err != nil {
		return err
	}
	c, cfg, err := stepenv.Client()
	if err != nil {
		return err
	}
	env := stepenv.Env{Client: c, Config: cfg, Namespace: stepenv.ActiveNamespace(), Results: &stepenv.Results{}, Log: os.Stdout}
	return modifyTemplate(ctx, env, params, output)
}

// stepParams are the Task's parameters and the output format, from the
// environment and args. The array parameters are the arguments Tekton
// expands each of them into, after its option.
func stepParams(args []string) (stepenv.Params, string, error) {
	p, err := parseArgs(cliOptions, args)
	if err != nil {
		return stepenv.Params{}, "", err
	}
	output := p.strings[keyOutput]
	if output != "" && output != outputYAML && output != outputJSON {
		return stepenv.Params{}, "", fmt.Errorf("%v is not a valid output type", output)
	}
	delete(p.strings, keyOutput)
	delete(p.strings, keyDebug)
	return stepenv.Params{Strings: p.strings, Arrays: p.lists}, output, nil
}
