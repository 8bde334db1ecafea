package copytemplate

import (
	"context"

	"github.com/virtflow/virtflow/tasks/stepargs"
)

// options are upstream copy-template's.
var options = []stepargs.Option{
	{Long: "source-template-name", Env: "SOURCE_TEMPLATE_NAME", Key: ParamSourceTemplateName},
	{Long: "source-template-namespace", Env: "SOURCE_TEMPLATE_NAMESPACE", Key: ParamSourceTemplateNamespace},
	{Long: "target-template-name", Env: "TARGET_TEMPLATE_NAME", Key: ParamTargetTemplateName},
	{Long: "target-template-namespace", Env: "TARGET_TEMPLATE_NAMESPACE", Key: ParamTargetTemplateNamespace},
	{Long: "allow-replace", Env: "ALLOW_REPLACE", Key: ParamAllowReplace},
	stepargs.Output,
	stepargs.Debug,
}

// Main is the copy-template step program: it reads upstream's environment
// variables and arguments, runs Task and prints the copy as --output asks.
func Main(ctx context.Context, args []string) error {
	return stepargs.Run(ctx, options, args, copyTemplate)
}
