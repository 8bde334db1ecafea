package tools

// The Tasks, Pipelines and PipelineRuns virtflow ships are checked here
// with Tekton's own code, the release the node runs: what its webhook does
// on create (defaults, then validation) and what its PipelineRun reconciler
// checks before it starts TaskRuns (params each Task needs, result
// references, taskRunSpecs). Strict decoding also refuses fields Tekton's
// types do not have, which the API server would silently prune.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	cfgtesting "github.com/tektoncd/pipeline/pkg/apis/config/testing"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"github.com/tektoncd/pipeline/pkg/reconciler/pipelinerun/resources"
	"github.com/tektoncd/pipeline/pkg/reconciler/taskrun"
	taskresources "github.com/tektoncd/pipeline/pkg/reconciler/taskrun/resources"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"knative.dev/pkg/apis"
	"sigs.k8s.io/yaml"
)

// manifestDirs are the trees whose YAML is checked: what the operator
// installs and what users are told to create.
var manifestDirs = []string{"../../tasks/manifests", "../../examples/pipelines"}

// images fill the Tasks' image placeholders, as rendering does.
var images = strings.NewReplacer(
	"__TEKTON_TASKS_IMAGE__", "virtflow.local/tekton-tasks:test",
	"__TEKTON_TASKS_DISK_VIRT_IMAGE__", "virtflow.local/tekton-tasks-disk-virt:test",
)

// bundle is every object of the trees, decoded into its type.
type bundle struct {
	tasks        map[string]*v1.Task
	pipelines    map[string]*v1.Pipeline
	runs         []*v1.PipelineRun
	accounts     map[string]bool
	sourceOfName map[string]string
}

// document is one YAML document and where it came from.
type document struct {
	file string
	data []byte
	kind string
}

func readDocuments(dirs []string) ([]document, error) {
	var docs []document
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(file) != ".yaml" {
				return err
			}
			data, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			split, err := splitDocuments(file, []byte(images.Replace(string(data))))
			docs = append(docs, split...)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", dir, err)
		}
	}
	return docs, nil
}

// splitDocuments skips documents that hold only comments.
func splitDocuments(file string, data []byte) ([]document, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []document
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("splitting %s: %w", file, err)
		}
		var head struct{ Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", file, err)
		}
		if head.Kind == "" && strings.TrimSpace(stripComments(string(doc))) != "" {
			return nil, fmt.Errorf("%s: a document without a kind", file)
		}
		if head.Kind != "" {
			docs = append(docs, document{file: file, data: doc, kind: head.Kind})
		}
	}
}

func stripComments(s string) string {
	var kept []string
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && t != "---" {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// decode reads every document strictly into its type.
func decode(docs []document) (*bundle, error) {
	b := &bundle{tasks: map[string]*v1.Task{}, pipelines: map[string]*v1.Pipeline{}, accounts: map[string]bool{}, sourceOfName: map[string]string{}}
	for _, d := range docs {
		var target any
		switch d.kind {
		case "Task":
			target = &v1.Task{}
		case "Pipeline":
			target = &v1.Pipeline{}
		case "PipelineRun":
			target = &v1.PipelineRun{}
		case "ClusterRole":
			target = &rbacv1.ClusterRole{}
		case "RoleBinding":
			target = &rbacv1.RoleBinding{}
		case "ServiceAccount":
			target = &corev1.ServiceAccount{}
		case "Secret":
			target = &corev1.Secret{}
		default:
			return nil, fmt.Errorf("%s: unexpected kind %s", d.file, d.kind)
		}
		if err := yaml.UnmarshalStrict(d.data, target); err != nil {
			return nil, fmt.Errorf("%s: decoding a %s: %w", d.file, d.kind, err)
		}
		b.add(d.file, target)
	}
	return b, nil
}

func (b *bundle) add(file string, obj any) {
	switch o := obj.(type) {
	case *v1.Task:
		b.tasks[o.Name] = o
		b.sourceOfName["Task/"+o.Name] = file
	case *v1.Pipeline:
		b.pipelines[o.Name] = o
		b.sourceOfName["Pipeline/"+o.Name] = file
	case *v1.PipelineRun:
		b.runs = append(b.runs, o)
	case *corev1.ServiceAccount:
		b.accounts[o.Name] = true
	}
}

// contexts are the feature flags Tekton validates with: the release's
// defaults (beta API fields, as the node installs them) and stable alone,
// so that nothing here needs more than stable.
func contexts(t *testing.T) map[string]context.Context {
	create := apis.WithinCreate(t.Context())
	return map[string]context.Context{
		"release defaults": cfgtesting.SetFeatureFlags(create, t, map[string]string{}),
		"stable":           cfgtesting.EnableStableAPIFields(create),
	}
}

// admit is what Tekton's webhook does on create: defaults, then validation.
func admit(ctx context.Context, obj interface {
	SetDefaults(context.Context)
	Validate(context.Context) *apis.FieldError
},
) error {
	obj.SetDefaults(ctx)
	if err := obj.Validate(ctx); err != nil {
		return err
	}
	return nil
}

// checkPipelineAgainstTasks is what the PipelineRun reconciler checks once
// it has resolved the Tasks, as the webhook defaulted them when they were
// created: every Task exists, gets the params it has no
// default for with the right types, and every result reference names a
// result the Task declares. Tekton ignores params a Task does not declare;
// here they are errors, since they are typos.
func checkPipelineAgainstTasks(ctx context.Context, p *v1.Pipeline, tasks map[string]*v1.Task) error {
	p = p.DeepCopy()
	p.SetDefaults(ctx)
	var state resources.PipelineRunState
	for _, pt := range append(slices.Clone(p.Spec.Tasks), p.Spec.Finally...) {
		if pt.TaskRef == nil {
			return fmt.Errorf("pipeline task %s: no taskRef", pt.Name)
		}
		task, ok := tasks[pt.TaskRef.Name]
		if !ok {
			return fmt.Errorf("pipeline task %s: no Task %q", pt.Name, pt.TaskRef.Name)
		}
		task = task.DeepCopy()
		task.SetDefaults(ctx)
		resolved := &taskresources.ResolvedTask{TaskName: task.Name, Kind: v1.NamespacedTaskKind, TaskSpec: &task.Spec}
		if err := taskrun.ValidateResolvedTask(ctx, pt.Params, pt.Matrix, resolved); err != nil {
			return fmt.Errorf("pipeline task %s: %w", pt.Name, err)
		}
		for _, param := range pt.Params {
			if !slices.ContainsFunc(task.Spec.Params, func(s v1.ParamSpec) bool { return s.Name == param.Name }) {
				return fmt.Errorf("pipeline task %s: Task %s has no param %q", pt.Name, task.Name, param.Name)
			}
		}
		state = append(state, &resources.ResolvedPipelineTask{PipelineTask: &pt, ResolvedTask: resolved})
	}
	if err := resources.ValidatePipelineTaskResults(state); err != nil {
		return err
	}
	return resources.ValidatePipelineResults(&p.Spec, state)
}

// checkRun is what the reconciler checks of a PipelineRun against its
// Pipeline, and that the service accounts it names are installed.
func checkRun(pr *v1.PipelineRun, b *bundle) error {
	if pr.Spec.PipelineRef == nil {
		return errors.New("no pipelineRef")
	}
	p, ok := b.pipelines[pr.Spec.PipelineRef.Name]
	if !ok {
		return fmt.Errorf("no Pipeline %q", pr.Spec.PipelineRef.Name)
	}
	if err := resources.ValidateRequiredParametersProvided(&p.Spec.Params, &pr.Spec.Params); err != nil {
		return err
	}
	if err := resources.ValidateParamTypesMatching(&p.Spec, pr); err != nil {
		return err
	}
	if err := resources.ValidateTaskRunSpecs(&p.Spec, pr); err != nil {
		return err
	}
	for _, param := range pr.Spec.Params {
		if !slices.ContainsFunc(p.Spec.Params, func(s v1.ParamSpec) bool { return s.Name == param.Name }) {
			return fmt.Errorf("Pipeline %s has no param %q", p.Name, param.Name)
		}
	}
	for _, spec := range pr.Spec.TaskRunSpecs {
		if spec.ServiceAccountName != "" && !b.accounts[spec.ServiceAccountName] {
			return fmt.Errorf("taskRunSpecs of %s: no ServiceAccount %q is installed", spec.PipelineTaskName, spec.ServiceAccountName)
		}
	}
	return nil
}

func load(t *testing.T) *bundle {
	t.Helper()
	docs, err := readDocuments(manifestDirs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := decode(docs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestManifestsAreWhatTektonAdmits(t *testing.T) {
	b := load(t)
	if len(b.tasks) != 11 || len(b.pipelines) < 2 || len(b.runs) < 2 || len(b.accounts) != 9 {
		t.Fatalf("read %d Tasks, %d Pipelines, %d PipelineRuns, %d ServiceAccounts: the trees moved?",
			len(b.tasks), len(b.pipelines), len(b.runs), len(b.accounts))
	}
	for name, ctx := range contexts(t) {
		for _, task := range b.tasks {
			if err := admit(ctx, task); err != nil {
				t.Errorf("%s, Task %s (%s): %v", name, task.Name, b.sourceOfName["Task/"+task.Name], err)
			}
		}
		for _, p := range b.pipelines {
			if err := admit(ctx, p); err != nil {
				t.Errorf("%s, Pipeline %s: %v", name, p.Name, err)
			}
		}
		for _, pr := range b.runs {
			// The API server generates the name before the validating
			// webhook sees the run.
			pr = pr.DeepCopy()
			pr.Name = pr.GenerateName + "x7k2q"
			if err := admit(ctx, pr); err != nil {
				t.Errorf("%s, PipelineRun %s: %v", name, pr.GenerateName, err)
			}
		}
	}
}

func TestPipelinesGiveTheirTasksWhatTheyNeed(t *testing.T) {
	b := load(t)
	ctx := cfgtesting.SetFeatureFlags(t.Context(), t, map[string]string{})
	for _, p := range b.pipelines {
		if err := checkPipelineAgainstTasks(ctx, p, b.tasks); err != nil {
			t.Errorf("Pipeline %s: %v", p.Name, err)
		}
	}
	for _, pr := range b.runs {
		if err := checkRun(pr, b); err != nil {
			t.Errorf("PipelineRun %s: %v", pr.GenerateName, err)
		}
	}
}
