package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	templatev1 "github.com/openshift/api/template/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/virtflow/virtflow/embedded/platform"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/templateprocess"
)

const templateUsage = `usage: virtflow template process [TEMPLATE] [-n NAMESPACE] [-p NAME=VALUE]... [NAME=VALUE]...
       [-l LABELS] [-f FILE] [--local] [-o json|yaml] [--ignore-unknown-parameters]

processes a template as oc process does and prints the objects as a List,
for kubectl create -f -: TEMPLATE is read from the cluster (namespace
openshift, where the common templates are, unless -n says otherwise), or
FILE is read instead. VMs made from a template that names its namespace are
labelled with its namespace (vm.kubevirt.io/template.namespace), as the
console labels them, so the template validator applies its rules.`

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// template runs `virtflow template process`.
func template(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "process" {
		return errors.New(templateUsage)
	}
	fs := flag.NewFlagSet("template process", flag.ContinueOnError)
	var params multiFlag
	fs.Var(&params, "p", "a parameter's value, NAME=VALUE (repeatable)")
	ns := fs.String("n", "openshift", "the template's namespace")
	file := fs.String("f", "", "read the template from this file (- for standard input)")
	local := fs.Bool("local", false, "process without the cluster (needs -f; implied by it)")
	labels := fs.String("l", "", "labels to add to every object, k=v[,k=v]")
	output := fs.String("o", "json", "json or yaml")
	ignoreUnknown := fs.Bool("ignore-unknown-parameters", false, "skip parameters the template does not declare")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig (env KUBECONFIG, else the one virtflow up wrote)")
	if err := fs.Parse(interleaved(args[1:])); err != nil {
		return err
	}
	name, assignments := splitTemplateArgs(fs.Args())
	if *local && *file == "" {
		return errors.New("--local needs the template from a file (-f FILE)")
	}
	tpl, err := loadTemplate(ctx, *file, *ns, name, *kubeconfig)
	if err != nil {
		return err
	}
	values, err := templateprocess.ParseParameters(append([]string(params), assignments...))
	if err != nil {
		return err
	}
	var lbls map[string]string
	if *labels != "" {
		if lbls, err = templateprocess.ParseLabels(*labels); err != nil {
			return err
		}
	}
	processed, err := templateprocess.Process(tpl, templateprocess.Options{Values: values, Labels: lbls,
		IgnoreUnknownParameters: *ignoreUnknown, Random: rand.NewSource(time.Now().UnixNano())})
	if err != nil {
		return err
	}
	templateprocess.MarkTemplateNamespace(processed.Objects, tpl)
	return render(out, *output, processed.Objects)
}

// interleaved moves positional arguments after the flags, as oc accepts
// them anywhere.
func interleaved(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		if !strings.Contains(a, "=") && takesValue(a) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return append(flags, rest...)
}

func takesValue(flagArg string) bool {
	switch strings.TrimLeft(flagArg, "-") {
	case "local", "ignore-unknown-parameters":
		return false
	}
	return true
}

// splitTemplateArgs is the template's name (the first argument without
// "=") and the NAME=VALUE arguments.
func splitTemplateArgs(args []string) (string, []string) {
	var name string
	var assignments []string
	for _, a := range args {
		if name == "" && !strings.Contains(a, "=") {
			name = a
			continue
		}
		assignments = append(assignments, a)
	}
	return name, assignments
}

func loadTemplate(ctx context.Context, file, ns, name, kubeconfig string) (*templatev1.Template, error) {
	tpl := &templatev1.Template{}
	if file != "" {
		data, err := readFile(file)
		if err != nil {
			return nil, err
		}
		if err := yaml.UnmarshalStrict(data, tpl); err != nil {
			return nil, fmt.Errorf("reading template from %s: %w", file, err)
		}
		return tpl, nil
	}
	if name == "" {
		return nil, errors.New("a template name or -f FILE is required\n" + templateUsage)
	}
	c, err := templateClient(kubeconfig)
	if err != nil {
		return nil, err
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, tpl); err != nil {
		return nil, fmt.Errorf("reading template %s/%s: %w", ns, name, err)
	}
	return tpl, nil
}

func readFile(file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(os.Stdin)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return data, nil
}

func templateClient(kubeconfig string) (client.Client, error) {
	if kubeconfig == "" {
		kubeconfig = os.Getenv("KUBECONFIG")
	}
	if kubeconfig == "" {
		kubeconfig = filepath.Join(platform.DefaultDataDir(), "kubernetes", "kubeconfig")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", kubeconfig, err)
	}
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

func render(out io.Writer, format string, objects []runtime.RawExtension) error {
	var data []byte
	var err error
	switch format {
	case "json":
		data, err = templateprocess.RenderJSON(objects)
	case "yaml":
		data, err = templateprocess.RenderYAML(objects)
	default:
		return fmt.Errorf("output format %q is not supported (json or yaml)", format)
	}
	if err != nil {
		return err
	}
	_, err = out.Write(data)
	return err
}
