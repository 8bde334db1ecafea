package createvm

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Keys of the step's own options, which are no Task parameters.
const (
	keyOutput = "output"
	keyDebug  = "debug"
	// keyVMNamespace is VM_NAMESPACE: the manifest Task's namespace, the
	// template Task's vmNamespace.
	keyVMNamespace = "vm-namespace"
)

// options are upstream create-vm's (v0.22.0 and v0.26.0 together).
var options = []option{
	{long: "template-name", env: "TEMPLATE_NAME", key: ParamTemplateName},
	{long: "template-namespace", env: "TEMPLATE_NAMESPACE", key: ParamTemplateNamespace},
	{long: "template-params", key: ParamTemplateParams, list: true},
	{long: "vm-manifest", env: "VM_MANIFEST", key: ParamManifest},
	{long: "vm-namespace", env: "VM_NAMESPACE", key: keyVMNamespace},
	{long: "start-vm", env: "START_VM", key: ParamStartVM},
	{long: "run-strategy", env: "RUN_STRATEGY", key: ParamRunStrategy},
	{long: "set-owner-reference", env: "SET_OWNER_REFERENCE", key: ParamSetOwnerReference},
	{long: "virtctl", env: "VIRTCTL", key: ParamVirtctl},
	{long: "output", short: "o", key: keyOutput},
	{long: "debug", key: keyDebug, boolean: true},
}

// Main is the create-vm step program. It reads upstream's environment
// variables and arguments and runs FromTemplate when a template is named
// (create-vm-from-template sets TEMPLATE_NAME), else FromManifest, printing
// the created VM as --output asks.
func Main(ctx context.Context, args []string) error {
	task, params, output, err := stepParams(args)
	if err != nil {
		return err
	}
	c, cfg, err := stepenv.Client()
	if err != nil {
		return err
	}
	env := stepenv.Env{Client: c, Config: cfg, Namespace: stepenv.ActiveNamespace(), Results: &stepenv.Results{}, Log: os.Stdout}
	if task == FromTemplate.Name {
		return createFromTemplate(ctx, env, params, output)
	}
	return createFromManifest(ctx, env, params, output)
}

// stepParams are the Task the step runs, its parameters and the output
// format, from the environment and args.
func stepParams(args []string) (string, stepenv.Params, string, error) {
	p, err := parseArgs(options, args)
	if err != nil {
		return "", stepenv.Params{}, "", err
	}
	if err := checkMode(p); err != nil {
		return "", stepenv.Params{}, "", err
	}
	output := p.strings[keyOutput]
	if !validOutput(output) {
		return "", stepenv.Params{}, "", fmt.Errorf("%v is not a valid output type", output)
	}
	s := p.strings
	common := map[string]string{ParamStartVM: s[ParamStartVM], ParamRunStrategy: s[ParamRunStrategy]}
	if p.given[ParamTemplateName] {
		common[ParamTemplateName] = s[ParamTemplateName]
		common[ParamTemplateNamespace] = s[ParamTemplateNamespace]
		common[ParamVMNamespace] = s[keyVMNamespace]
		arrays := map[string][]string{ParamTemplateParams: p.lists[ParamTemplateParams]}
		return FromTemplate.Name, stepenv.Params{Strings: common, Arrays: arrays}, output, nil
	}
	common[ParamManifest] = s[ParamManifest]
	common[ParamVirtctl] = s[ParamVirtctl]
	common[ParamNamespace] = s[keyVMNamespace]
	common[ParamSetOwnerReference] = s[ParamSetOwnerReference]
	return FromManifest.Name, stepenv.Params{Strings: common}, output, nil
}

// checkMode refuses template options mixed with a manifest or virtctl
// flags, with upstream v0.22.0's texts; each Task alone checks the rest.
func checkMode(p parsedArgs) error {
	s := p.strings
	template := s[ParamTemplateName] != "" || s[ParamTemplateNamespace] != "" || len(p.lists[ParamTemplateParams]) > 0
	if !template || (s[ParamManifest] == "" && s[ParamVirtctl] == "") {
		return nil
	}
	if s[ParamManifest] != "" && s[ParamTemplateName] == "" && s[ParamVirtctl] == "" {
		return errors.New("template-namespace, template-params options are not applicable for vm-manifest")
	}
	return errors.New("only one of vm-manifest, template-name or virtctl should be specified")
}
