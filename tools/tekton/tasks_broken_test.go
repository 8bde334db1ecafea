package tools

import (
	"slices"
	"strings"
	"testing"

	cfgtesting "github.com/tektoncd/pipeline/pkg/apis/config/testing"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
)

// The checks must be able to fail: each case breaks a copy of a shipped
// object the way an edit could, and expects the error Tekton gives.

func wantError(t *testing.T, err error, contains string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", contains)
	}
	if !strings.Contains(err.Error(), contains) {
		t.Fatalf("error %q, want one containing %q", err, contains)
	}
}

func TestAnUndeclaredParamInATaskIsRefused(t *testing.T) {
	task := load(t).tasks["execute-in-vm"].DeepCopy()
	task.Spec.Steps[0].Args = append(task.Spec.Steps[0].Args, "$(params.undeclared)")
	for name, ctx := range contexts(t) {
		err := admit(ctx, task)
		if err == nil {
			t.Fatalf("%s: admitted a Task using an undeclared param", name)
		}
		wantError(t, err, "non-existent variable")
	}
}

func TestAnUnknownFieldIsRefused(t *testing.T) {
	docs, err := splitDocuments("broken.yaml", []byte(`apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: broken
spec:
  steps:
    - name: s
      image: busybox
      enviroment: []
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = decode(docs)
	wantError(t, err, `unknown field "enviroment"`)
}

// brokenPipeline is server-deployer with edit applied to its pipeline
// task named task.
func brokenPipeline(t *testing.T, b *bundle, task string, edit func(*v1.PipelineTask)) *v1.Pipeline {
	t.Helper()
	p := b.pipelines["server-deployer"].DeepCopy()
	i := slices.IndexFunc(p.Spec.Tasks, func(pt v1.PipelineTask) bool { return pt.Name == task })
	if i < 0 {
		t.Fatalf("server-deployer has no task %s", task)
	}
	edit(&p.Spec.Tasks[i])
	return p
}

func TestAPipelineTaskMissingARequiredParamIsRefused(t *testing.T) {
	b := load(t)
	p := brokenPipeline(t, b, "wait-for-vmi-status", func(pt *v1.PipelineTask) {
		pt.Params = slices.DeleteFunc(pt.Params, func(p v1.Param) bool { return p.Name == "vmiName" })
	})
	err := checkPipelineAgainstTasks(cfgtesting.SetFeatureFlags(t.Context(), t, map[string]string{}), p, b.tasks)
	wantError(t, err, "missing values for these params which have no default values: [vmiName]")
}

func TestAMisspelledParamIsRefused(t *testing.T) {
	b := load(t)
	p := brokenPipeline(t, b, "create-vm-from-template", func(pt *v1.PipelineTask) {
		pt.Params = append(pt.Params, v1.Param{Name: "runstrategy", Value: *v1.NewStructuredValues("Always")})
	})
	err := checkPipelineAgainstTasks(t.Context(), p, b.tasks)
	wantError(t, err, `Task create-vm-from-template has no param "runstrategy"`)
}

func TestAReferenceToAResultNoTaskDeclaresIsRefused(t *testing.T) {
	b := load(t)
	p := brokenPipeline(t, b, "execute-in-vm", func(pt *v1.PipelineTask) {
		pt.Params[0].Value = *v1.NewStructuredValues("$(tasks.create-vm-from-template.results.vmName)")
	})
	err := checkPipelineAgainstTasks(t.Context(), p, b.tasks)
	wantError(t, err, `"vmName" is not a named result returned by pipeline task "create-vm-from-template"`)
}

func TestARunWithAnAccountNotInstalledIsRefused(t *testing.T) {
	b := load(t)
	pr := b.runs[0].DeepCopy()
	pr.Spec.TaskRunSpecs[0].ServiceAccountName = "nobody"
	wantError(t, checkRun(pr, b), `no ServiceAccount "nobody" is installed`)
}
