package generatesshkeys

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// envParams maps the environment variables the Task's step sets to the
// Task's parameters.
var envParams = map[string]string{
	"PUBLIC_KEY_SECRET_NAME":        ParamPublicKeySecretName,
	"PUBLIC_KEY_SECRET_NAMESPACE":   ParamPublicKeySecretNamespace,
	"PRIVATE_KEY_SECRET_NAME":       ParamPrivateKeySecretName,
	"PRIVATE_KEY_SECRET_NAMESPACE":  ParamPrivateKeySecretNamespace,
	"ADDITIONAL_SSH_KEYGEN_OPTIONS": ParamAdditionalSSHKeygenOptions,
}

// Main is the generate-ssh-keys step program: the string parameters come
// from the environment, the private key connection options are the
// arguments (the Task passes "--" and then the array); --debug is taken
// and ignored.
func Main(ctx context.Context, args []string) error {
	params, err := paramsFrom(os.LookupEnv, args)
	if err != nil {
		return err
	}
	active := stepenv.ActiveNamespace()
	// Bad input is reported before any cluster access, as upstream.
	o, err := parseOptions(params, active)
	if err != nil {
		return err
	}
	if _, err := parseKeygenOptions(o.keygenOptions, "default"); err != nil {
		return err
	}
	env, err := stepenv.New(active, os.Stderr)
	if err != nil {
		return err
	}
	return Task.Run(ctx, env, params)
}

func paramsFrom(lookupEnv func(string) (string, bool), args []string) (stepenv.Params, error) {
	params := stepenv.Params{Strings: map[string]string{}, Arrays: map[string][]string{}}
	for envName, param := range envParams {
		if v, ok := lookupEnv(envName); ok {
			params.Strings[param] = v
		}
	}
	var positional []string
	for i, arg := range args {
		if arg == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		switch {
		case arg == "--debug":
		case strings.HasPrefix(arg, "-"):
			return stepenv.Params{}, fmt.Errorf("unknown argument %s", arg)
		default:
			positional = append(positional, arg)
		}
	}
	params.Arrays[ParamPrivateKeyConnectionOptions] = positional
	return params, nil
}
