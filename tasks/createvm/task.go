// Package createvm is the create-vm step program of the
// create-vm-from-manifest Task (kubevirt-tekton-tasks v0.26.0) and the
// create-vm-from-template Task (v0.22.0): it builds a VirtualMachine from a
// manifest, from `virtctl create vm` flags or from an OpenShift Template,
// creates it, optionally starts it, and reports its name and namespace.
package createvm

import (
	"context"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Parameter names of the create-vm-from-manifest Task.
const (
	ParamManifest          = "manifest"
	ParamVirtctl           = "virtctl"
	ParamNamespace         = "namespace"
	ParamSetOwnerReference = "setOwnerReference"
)

// Parameter names of the create-vm-from-template Task.
const (
	ParamTemplateName      = "templateName"
	ParamTemplateNamespace = "templateNamespace"
	ParamTemplateParams    = "templateParams"
	ParamVMNamespace       = "vmNamespace"
)

// Parameter names both Tasks have.
const (
	ParamStartVM     = "startVM"
	ParamRunStrategy = "runStrategy"
)

// Result names of both Tasks.
const (
	ResultName      = stepenv.ResultName
	ResultNamespace = stepenv.ResultNamespace
)

// FromManifest is the create-vm-from-manifest Task.
var FromManifest = stepenv.Task{Name: "create-vm-from-manifest", Run: runFromManifest}

// FromTemplate is the create-vm-from-template Task.
var FromTemplate = stepenv.Task{Name: "create-vm-from-template", Run: runFromTemplate}

// runFromManifest is FromManifest's Run; the durable tasks print nothing,
// the step prints the VM as its --output asks.
func runFromManifest(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	return createFromManifest(ctx, env, params, "")
}

// runFromTemplate is FromTemplate's Run.
func runFromTemplate(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	return createFromTemplate(ctx, env, params, "")
}

func createFromManifest(ctx context.Context, env stepenv.Env, params stepenv.Params, output string) error {
	vm, err := manifestVM(ctx, env, params)
	if err != nil {
		return err
	}
	return finish(ctx, env, vm, params.String(ParamStartVM) == "true", output)
}

func createFromTemplate(ctx context.Context, env stepenv.Env, params stepenv.Params, output string) error {
	vm, err := templateVM(ctx, env, params)
	if err != nil {
		return err
	}
	return finish(ctx, env, vm, params.String(ParamStartVM) == "true", output)
}
