// Package copytemplate is the copy-template step program and Task
// (kubevirt-tekton-tasks v0.22.0): it copies an OpenShift Template under a
// new name or namespace, turning a common template into a user one, and
// reports the copy's name and namespace.
package copytemplate

import (
	"context"
	"errors"
	"strings"

	templatev1 "github.com/openshift/api/template/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Parameter names of the copy-template Task.
const (
	ParamSourceTemplateName      = "sourceTemplateName"
	ParamSourceTemplateNamespace = "sourceTemplateNamespace"
	ParamTargetTemplateName      = "targetTemplateName"
	ParamTargetTemplateNamespace = "targetTemplateNamespace"
	ParamAllowReplace            = "allowReplace"
)

// Result names of the copy-template Task.
const (
	ResultName      = stepenv.ResultName
	ResultNamespace = stepenv.ResultNamespace
)

// Task is the copy-template Task.
var Task = stepenv.Task{Name: "copy-template", Run: run}

// run is Task's Run; only the step prints the copy.
func run(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	return copyTemplate(ctx, env, params, "")
}

// request is what the parameters ask for, trimmed and defaulted.
type request struct {
	source, target crclient.ObjectKey
	allowReplace   bool
}

// readRequest checks and defaults the parameters as upstream does: names
// and namespaces are trimmed, namespaces default to the active one.
func readRequest(env stepenv.Env, params stepenv.Params) (request, error) {
	trimmed := func(name string) string { return strings.TrimSpace(params.String(name)) }
	r := request{
		source:       crclient.ObjectKey{Namespace: trimmed(ParamSourceTemplateNamespace), Name: trimmed(ParamSourceTemplateName)},
		target:       crclient.ObjectKey{Namespace: trimmed(ParamTargetTemplateNamespace), Name: trimmed(ParamTargetTemplateName)},
		allowReplace: params.String(ParamAllowReplace) == "true",
	}
	if r.source.Name == "" {
		return r, errors.New("source-template-name param has to be specified")
	}
	if r.source.Namespace == "" {
		r.source.Namespace = env.Namespace
	}
	if r.target.Namespace == "" {
		r.target.Namespace = env.Namespace
	}
	return r, nil
}

func copyTemplate(ctx context.Context, env stepenv.Env, params stepenv.Params, output string) error {
	r, err := readRequest(env, params)
	if err != nil {
		return err
	}
	tpl := &templatev1.Template{}
	if err := env.Client.Get(ctx, r.source, tpl); err != nil {
		// The API's own text, `templates.template.openshift.io "x" not found`.
		return err
	}
	if isCommonTemplate(tpl) {
		if err := userTemplate(tpl, r.target.Name); err != nil {
			return err
		}
	}
	setCopyMetadata(tpl, r)
	saved, err := save(ctx, env, tpl, r.allowReplace)
	if err != nil {
		return err
	}
	if err := env.Results.WriteObject(saved); err != nil {
		return err
	}
	return outputformat.PrintObject(env.Log, saved, templatev1.GroupVersion.WithKind("Template"), output)
}
