package modifydataobject

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// envParams maps the environment variables the Task's step sets to the
// Task's parameters (and the pod's identity, from the downward API).
var envParams = map[string]string{
	"DATA_OBJECT_MANIFEST":  ParamManifest,
	"DATA_OBJECT_NAMESPACE": ParamNamespace,
	"WAIT_FOR_SUCCESS":      ParamWaitForSuccess,
	"ALLOW_REPLACE":         ParamAllowReplace,
	"DELETE_OBJECT":         ParamDeleteObject,
	"DELETE_OBJECT_KIND":    ParamDeleteObjectKind,
	"DELETE_OBJECT_NAME":    ParamDeleteObjectName,
	"SET_OWNER_REFERENCE":   ParamSetOwnerReference,
	"TIMEOUT":               ParamTimeout,
	"POD_NAME":              ParamPodName,
	"POD_NAMESPACE":         ParamPodNamespace,
}

// Main is the modify-data-object step program: the parameters come from
// the environment, args (the program's arguments) may ask for the created
// object on stdout (--output=yaml|json, -o) or debug logs (--debug).
func Main(ctx context.Context, args []string) error {
	params := paramsFromEnv(os.LookupEnv)
	output, err := parseArgs(args)
	if err != nil {
		return err
	}
	active := stepenv.ActiveNamespace()
	// Bad input is reported before any cluster access, as upstream.
	if _, err := parseOptions(params, active); err != nil {
		return err
	}
	if params.String(ParamDeleteObject) != "true" {
		if err := outputformat.Check(output); err != nil {
			return err
		}
	}
	env, err := stepenv.New(active, os.Stderr)
	if err != nil {
		return err
	}
	obj, err := apply(ctx, env, params)
	if err != nil {
		return err
	}
	return printObject(os.Stdout, obj, output)
}

func paramsFromEnv(lookupEnv func(string) (string, bool)) stepenv.Params {
	params := stepenv.Params{Strings: map[string]string{}}
	for envName, param := range envParams {
		if v, ok := lookupEnv(envName); ok {
			params.Strings[param] = v
		}
	}
	return params
}

// parseArgs returns the output format args ask for.
func parseArgs(args []string) (string, error) {
	output := ""
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--debug":
		case strings.HasPrefix(arg, "--output=") || strings.HasPrefix(arg, "-o="):
			output = arg[strings.Index(arg, "=")+1:]
		case arg == "--output" || arg == "-o":
			if i+1 >= len(args) {
				return "", fmt.Errorf("missing value for %s", arg)
			}
			i++
			output = args[i]
		default:
			return "", fmt.Errorf("unknown argument %s", arg)
		}
	}
	return output, nil
}

// printObject prints the created object as upstream does with --output.
func printObject(w io.Writer, obj *unstructured.Unstructured, output string) error {
	if obj == nil {
		return nil
	}
	return outputformat.Print(w, "the data object", obj.Object, output)
}
