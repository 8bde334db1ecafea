package copytemplate

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Keys of the step's own options, which are no Task parameters.
const (
	keyOutput = "output"
	keyDebug  = "debug"
)

// option is one of the step's options, read as upstream's argument parser
// (go-arg) reads it: its environment variable, then --long, --long=value
// or -short on the command line, which wins.
type option struct {
	long, short, env, key string
	boolean               bool
}

// options are upstream copy-template's.
var options = []option{
	{long: "source-template-name", env: "SOURCE_TEMPLATE_NAME", key: ParamSourceTemplateName},
	{long: "source-template-namespace", env: "SOURCE_TEMPLATE_NAMESPACE", key: ParamSourceTemplateNamespace},
	{long: "target-template-name", env: "TARGET_TEMPLATE_NAME", key: ParamTargetTemplateName},
	{long: "target-template-namespace", env: "TARGET_TEMPLATE_NAMESPACE", key: ParamTargetTemplateNamespace},
	{long: "allow-replace", env: "ALLOW_REPLACE", key: ParamAllowReplace},
	{long: "output", short: "o", key: keyOutput},
	{long: "debug", key: keyDebug, boolean: true},
}

// Main is the copy-template step program: it reads upstream's environment
// variables and arguments, runs Task and prints the copy as --output asks.
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
	return copyTemplate(ctx, env, params, output)
}

// stepParams are the Task's parameters and the output format, from the
// environment and args.
func stepParams(args []string) (stepenv.Params, string, error) {
	values, err := parseArgs(args)
	if err != nil {
		return stepenv.Params{}, "", err
	}
	output := values[keyOutput]
	if output != "" && output != outputYAML && output != outputJSON {
		return stepenv.Params{}, "", fmt.Errorf("%v is not a valid output type", output)
	}
	delete(values, keyOutput)
	delete(values, keyDebug)
	return stepenv.Params{Strings: values}, output, nil
}

// parseArgs reads the options' values by key.
func parseArgs(args []string) (map[string]string, error) {
	values := map[string]string{}
	for _, o := range options {
		if v, ok := os.LookupEnv(o.env); ok && o.env != "" {
			values[o.key] = v
		}
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" && i+1 < len(args) {
			return nil, fmt.Errorf("too many positional arguments at '%s'", args[i+1])
		}
		if arg == "--" {
			break
		}
		if !isFlag(arg) {
			return nil, fmt.Errorf("too many positional arguments at '%s'", arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		o := findOption(name)
		switch {
		case o == nil || name == "":
			return nil, fmt.Errorf("unknown argument %s", arg)
		case hasValue:
			values[o.key] = value
		case o.boolean:
			values[o.key] = "true"
		case i+1 == len(args) || isFlag(args[i+1]):
			return nil, fmt.Errorf("missing value for %s", arg)
		default:
			i++
			values[o.key] = args[i]
		}
	}
	return values, nil
}

// isFlag is go-arg's test: a dash and something more than dashes.
func isFlag(s string) bool {
	return strings.HasPrefix(s, "-") && strings.TrimLeft(s, "-") != ""
}

func findOption(name string) *option {
	for i := range options {
		if options[i].long == name || (options[i].short != "" && options[i].short == name) {
			return &options[i]
		}
	}
	return nil
}
