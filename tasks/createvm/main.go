package createvm

import (
	"context"
	"errors"
	"os"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepargs"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// keyVMNamespace is the key of VM_NAMESPACE, which is no Task parameter
// of its own: the manifest Task's namespace, the template Task's
// vmNamespace.
const keyVMNamespace = "vm-namespace"

// options are upstream create-vm's (v0.22.0 and v0.26.0 together).
var options = []stepargs.Option{
	{Long: "template-name", Env: "TEMPLATE_NAME", Key: ParamTemplateName},
	{Long: "template-namespace", Env: "TEMPLATE_NAMESPACE", Key: ParamTemplateNamespace},
	{Long: "template-params", Key: ParamTemplateParams, List: true},
	{Long: "vm-manifest", Env: "VM_MANIFEST", Key: ParamManifest},
	{Long: "vm-namespace", Env: "VM_NAMESPACE", Key: keyVMNamespace},
	{Long: "start-vm", Env: "START_VM", Key: ParamStartVM},
	{Long: "run-strategy", Env: "RUN_STRATEGY", Key: ParamRunStrategy},
	{Long: "set-owner-reference", Env: "SET_OWNER_REFERENCE", Key: ParamSetOwnerReference},
	{Long: "virtctl", Env: "VIRTCTL", Key: ParamVirtctl},
	stepargs.Output,
	stepargs.Debug,
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
	env, err := stepenv.New(stepenv.ActiveNamespace(), os.Stdout)
	if err != nil {
		return err
	}
	if task == FromTemplate.Name {
		return createFromTemplate(ctx, env, params, output)
	}
	return createFromManifest(ctx, env, params, output)
}

// stepParams are the Task the step runs, its parameters and the output
// format, from the environment and args.
func stepParams(args []string) (string, stepenv.Params, string, error) {
	p, err := stepargs.Parse(options, args)
	if err != nil {
		return "", stepenv.Params{}, "", err
	}
	if err := checkMode(p); err != nil {
		return "", stepenv.Params{}, "", err
	}
	output := p.Strings[stepargs.KeyOutput]
	if err := outputformat.Check(output); err != nil {
		return "", stepenv.Params{}, "", err
	}
	s := p.Strings
	common := map[string]string{ParamStartVM: s[ParamStartVM], ParamRunStrategy: s[ParamRunStrategy]}
	if p.Given[ParamTemplateName] {
		common[ParamTemplateName] = s[ParamTemplateName]
		common[ParamTemplateNamespace] = s[ParamTemplateNamespace]
		common[ParamVMNamespace] = s[keyVMNamespace]
		arrays := map[string][]string{ParamTemplateParams: p.Lists[ParamTemplateParams]}
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
func checkMode(p stepargs.Values) error {
	s := p.Strings
	template := s[ParamTemplateName] != "" || s[ParamTemplateNamespace] != "" || len(p.Lists[ParamTemplateParams]) > 0
	if !template || (s[ParamManifest] == "" && s[ParamVirtctl] == "") {
		return nil
	}
	if s[ParamManifest] != "" && s[ParamTemplateName] == "" && s[ParamVirtctl] == "" {
		return errors.New("template-namespace, template-params options are not applicable for vm-manifest")
	}
	return errors.New("only one of vm-manifest, template-name or virtctl should be specified")
}
