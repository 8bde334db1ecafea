// Package tasks holds the Tekton Tasks virtflow installs, as upstream's
// kubevirt-tekton-tasks release defines them, with the RBAC SSP deploys for
// each (<task>-task) and the example Pipelines, and renders them for a
// namespace and a pair of step images. The step programs themselves are the
// subpackages.
package tasks

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/virtflow/virtflow/kube/apply"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// The placeholders the manifests carry where a step names its image.
const (
	// TasksImagePlaceholder is replaced by Images.Tasks.
	TasksImagePlaceholder = "__TEKTON_TASKS_IMAGE__"
	// DiskVirtImagePlaceholder is replaced by Images.DiskVirt.
	DiskVirtImagePlaceholder = "__TEKTON_TASKS_DISK_VIRT_IMAGE__"
)

// Parameter types, as a Task declares them.
const (
	ParamTypeString = "string"
	ParamTypeArray  = "array"
)

// manifestsDir is the embedded tree: the Tasks at its top, rbac/ and
// pipelines/ below.
const manifestsDir = "manifests"

//go:embed manifests
var manifestFS embed.FS

// Images are the step images the Tasks run.
type Images struct {
	// Tasks runs every task but the disk-virt ones (the step programs).
	Tasks string
	// DiskVirt runs disk-virt-customize and disk-virt-sysprep (the step
	// programs on a libguestfs base).
	DiskVirt string
}

// Param is one parameter of a Task.
type Param struct {
	// Name is the parameter's name.
	Name string
	// Type is ParamTypeString or ParamTypeArray.
	Type string
	// Default is nil when a run must give the parameter.
	Default *Value
}

// Value is a parameter's value: String for a string parameter, Array for
// an array one.
type Value struct {
	String string
	Array  []string
}

// kindOrder is the order Manifests returns kinds in: what a binding or a
// run names comes before it, though the API server would take any order.
var kindOrder = []string{"ClusterRole", "ServiceAccount", "RoleBinding", "Task", "Pipeline"}

// Manifests are the Tasks, their RBAC and the Pipelines with the images
// filled in and every namespaced object, and the subjects of the
// RoleBindings, in namespace. They come in a stable order: by kind (roles,
// service accounts, bindings, Tasks, Pipelines), then by name.
func Manifests(img Images, namespace string) ([]*unstructured.Unstructured, error) {
	if img.Tasks == "" || img.DiskVirt == "" {
		return nil, fmt.Errorf("rendering the Tekton tasks: both images are required (tasks %q, disk-virt %q)", img.Tasks, img.DiskVirt)
	}
	if namespace == "" {
		return nil, errors.New("rendering the Tekton tasks: a namespace is required")
	}
	r := strings.NewReplacer(TasksImagePlaceholder, img.Tasks, DiskVirtImagePlaceholder, img.DiskVirt)
	objs, err := readTree(r.Replace)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if err := setNamespace(o, namespace); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(cmp.Compare(kindRank(a.GetKind()), kindRank(b.GetKind())), cmp.Compare(a.GetName(), b.GetName()))
	})
	return objs, nil
}

// kindRank places unknown kinds last.
func kindRank(kind string) int {
	if i := slices.Index(kindOrder, kind); i >= 0 {
		return i
	}
	return len(kindOrder)
}

// setNamespace puts a namespaced object in namespace; a RoleBinding's
// service accounts are the ones installed beside it.
func setNamespace(o *unstructured.Unstructured, namespace string) error {
	if o.GetKind() == "ClusterRole" {
		return nil
	}
	o.SetNamespace(namespace)
	if o.GetKind() != "RoleBinding" {
		return nil
	}
	subjects, _, err := unstructured.NestedSlice(o.Object, "subjects")
	if err != nil {
		return fmt.Errorf("reading the subjects of RoleBinding %s: %w", o.GetName(), err)
	}
	for _, s := range subjects {
		if m, ok := s.(map[string]any); ok && m["kind"] == "ServiceAccount" {
			m["namespace"] = namespace
		}
	}
	return unstructured.SetNestedSlice(o.Object, subjects, "subjects")
}

// parsedTasks are the embedded Tasks by name, read once: TaskNames and
// TaskParams only read them.
var parsedTasks = sync.OnceValues(func() (map[string]*unstructured.Unstructured, error) {
	objs, err := readTree(func(s string) string { return s })
	if err != nil {
		return nil, err
	}
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if o.GetKind() == "Task" {
			byName[o.GetName()] = o
		}
	}
	return byName, nil
})

// TaskNames are the names of the Tasks, sorted.
func TaskNames() []string {
	byName, err := parsedTasks()
	if err != nil {
		// The manifests are compiled in; the unit tests read them all.
		panic(err)
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// TaskParams are the parameters Task name declares, in its order.
func TaskParams(name string) ([]Param, error) {
	byName, err := parsedTasks()
	if err != nil {
		return nil, err
	}
	task, ok := byName[name]
	if !ok {
		return nil, fmt.Errorf("no Tekton task %q", name)
	}
	raw, _, err := unstructured.NestedSlice(task.Object, "spec", "params")
	if err != nil {
		return nil, fmt.Errorf("reading the params of task %s: %w", name, err)
	}
	params := make([]Param, 0, len(raw))
	for _, r := range raw {
		p, err := toParam(r)
		if err != nil {
			return nil, fmt.Errorf("reading the params of task %s: %w", name, err)
		}
		params = append(params, p)
	}
	return params, nil
}

// toParam reads one entry of spec.params. A param without a type has its
// default's, else string, as Tekton infers it.
func toParam(raw any) (Param, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Param{}, fmt.Errorf("param %v is not an object", raw)
	}
	p := Param{}
	p.Name, _ = m["name"].(string)
	p.Type, _ = m["type"].(string)
	def, hasDefault := m["default"]
	if _, isArray := def.([]any); p.Type == "" && isArray {
		p.Type = ParamTypeArray
	}
	p.Type = cmp.Or(p.Type, ParamTypeString)
	if !hasDefault {
		return p, nil
	}
	switch d := def.(type) {
	case string:
		p.Default = &Value{String: d}
	case []any:
		p.Default = &Value{Array: make([]string, 0, len(d))}
		for _, e := range d {
			s, ok := e.(string)
			if !ok {
				return Param{}, fmt.Errorf("param %s: default element %v is not a string", p.Name, e)
			}
			p.Default.Array = append(p.Default.Array, s)
		}
	default:
		return Param{}, fmt.Errorf("param %s: default %v is neither a string nor an array", p.Name, def)
	}
	if (p.Type == ParamTypeArray) != (p.Default.Array != nil) {
		return Param{}, fmt.Errorf("param %s: default does not match type %s", p.Name, p.Type)
	}
	return p, nil
}

// WithDefaults is given completed as Tekton completes a TaskRun's params
// for Task name: a param the run leaves out takes its default. A param
// without a default that the run leaves out, or one given with the other
// type, is an error with Tekton's words; params the Task does not declare
// are dropped.
func WithDefaults(name string, given stepenv.Params) (stepenv.Params, error) {
	params, err := TaskParams(name)
	if err != nil {
		return stepenv.Params{}, err
	}
	out := stepenv.Params{Strings: map[string]string{}, Arrays: map[string][]string{}}
	var missing, mismatched []string
	for _, p := range params {
		s, isString := given.Strings[p.Name]
		a, isArray := given.Arrays[p.Name]
		switch {
		case isString && p.Type == ParamTypeString:
			out.Strings[p.Name] = s
		case isArray && p.Type == ParamTypeArray:
			out.Arrays[p.Name] = slices.Clone(a)
		case isString || isArray:
			mismatched = append(mismatched, p.Name)
		case p.Default == nil:
			missing = append(missing, p.Name)
		case p.Type == ParamTypeArray:
			out.Arrays[p.Name] = slices.Clone(p.Default.Array)
		default:
			out.Strings[p.Name] = p.Default.String
		}
	}
	if len(missing) > 0 {
		return stepenv.Params{}, fmt.Errorf("invalid input params for task %s: missing values for these params which have no default values: %s", name, missing)
	}
	if len(mismatched) > 0 {
		return stepenv.Params{}, fmt.Errorf("invalid input params for task %s: param types don't match the user-specified type: %s", name, mismatched)
	}
	return out, nil
}

// readTree decodes every YAML file under manifestsDir, in walk (lexical)
// order, after passing each file's text through edit.
func readTree(edit func(string) string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	err := fs.WalkDir(manifestFS, manifestsDir, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(file) != ".yaml" {
			return err
		}
		data, err := manifestFS.ReadFile(file)
		if err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
		docs, err := apply.Decode(file, []byte(edit(string(data))))
		objs = append(objs, docs...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the Tekton tasks' manifests: %w", err)
	}
	return objs, nil
}
