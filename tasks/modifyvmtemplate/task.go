// Package modifyvmtemplate is the modify-vm-template step program and Task
// (kubevirt-tekton-tasks v0.22.0): it edits an OpenShift Template and the
// VirtualMachine in it (CPU, memory, labels, annotations, disks, volumes,
// data volume templates, template parameters), or deletes the template,
// and reports the template's name and namespace.
package modifyvmtemplate

import (
	"context"

	templatev1 "github.com/openshift/api/template/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Parameter names of the modify-vm-template Task.
const (
	ParamTemplateName             = "templateName"
	ParamTemplateNamespace        = "templateNamespace"
	ParamCPUSockets               = "cpuSockets"
	ParamCPUCores                 = "cpuCores"
	ParamCPUThreads               = "cpuThreads"
	ParamMemory                   = "memory"
	ParamTemplateLabels           = "templateLabels"
	ParamTemplateAnnotations      = "templateAnnotations"
	ParamVMLabels                 = "vmLabels"
	ParamVMAnnotations            = "vmAnnotations"
	ParamDisks                    = "disks"
	ParamDeleteDisks              = "deleteDisks"
	ParamVolumes                  = "volumes"
	ParamDatavolumeTemplates      = "datavolumeTemplates"
	ParamDeleteDatavolumeTemplate = "deleteDatavolumeTemplate"
	ParamDeleteVolumes            = "deleteVolumes"
	ParamTemplateParameters       = "templateParameters"
	ParamDeleteTemplateParameters = "deleteTemplateParameters"
	ParamDeleteTemplate           = "deleteTemplate"
)

// Result names of the modify-vm-template Task.
const (
	ResultName      = stepenv.ResultName
	ResultNamespace = stepenv.ResultNamespace
)

// Task is the modify-vm-template Task.
var Task = stepenv.Task{Name: "modify-vm-template", Run: run}

// run is Task's Run; only the step prints the template.
func run(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	return modifyTemplate(ctx, env, params, "")
}

func modifyTemplate(ctx context.Context, env stepenv.Env, params stepenv.Params, output string) error {
	o, err := readOptions(params, env.Namespace)
	if err != nil {
		return err
	}
	tpl := &templatev1.Template{}
	if err := env.Client.Get(ctx, crclient.ObjectKey{Namespace: o.namespace, Name: o.name}, tpl); err != nil {
		// The API's own text, `templates.template.openshift.io "x" not found`.
		return err
	}
	if o.deleteTemplate {
		if err := env.Client.Delete(ctx, tpl); err != nil {
			return err
		}
		env.Logf("Template %s/%s deleted", tpl.Namespace, tpl.Name)
	} else if err := update(ctx, env, tpl, o); err != nil {
		return err
	}
	if err := env.Results.WriteObject(tpl); err != nil {
		return err
	}
	return outputformat.PrintObject(env.Log, tpl, templatev1.GroupVersion.WithKind("Template"), output)
}

// update applies o to tpl and its VM and saves tpl, which becomes what the
// server holds. The patch carries every change: lists are replaced whole,
// and labels and annotations are only added to.
func update(ctx context.Context, env stepenv.Env, tpl *templatev1.Template, o *options) error {
	original := tpl.DeepCopy()
	o.applyToTemplate(tpl)
	if err := o.applyToVM(tpl); err != nil {
		return err
	}
	if err := env.Client.Patch(ctx, tpl, crclient.MergeFrom(original)); err != nil {
		return err
	}
	env.Logf("Template %s/%s updated", tpl.Namespace, tpl.Name)
	return nil
}
