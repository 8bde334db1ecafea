package createvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"time"

	templatev1 "github.com/openshift/api/template/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/templateprocess"
	"github.com/virtflow/virtflow/tasks/keyvalues"
	"github.com/virtflow/virtflow/tasks/stepenv"
)

// vmKind is the only object of a template the task creates.
var vmKind = kubevirtv1.GroupVersion.WithKind("VirtualMachine")

// templateVM builds create-vm-from-template's VM: the template's
// VirtualMachine, processed with the templateParams, in vmNamespace.
func templateVM(ctx context.Context, env stepenv.Env, params stepenv.Params) (*kubevirtv1.VirtualMachine, error) {
	name := strings.TrimSpace(params.String(ParamTemplateName))
	if name == "" {
		return nil, errors.New("only one of vm-manifest, template-name or virtctl should be specified")
	}
	values, err := keyvalues.Parse(params.Array(ParamTemplateParams))
	if err != nil {
		return nil, fmt.Errorf("invalid template-params: %w", err)
	}
	tplNamespace := orActive(params.String(ParamTemplateNamespace), env.Namespace)
	vmNamespace := orActive(params.String(ParamVMNamespace), env.Namespace)
	tpl := &templatev1.Template{}
	if err := env.Client.Get(ctx, crclient.ObjectKey{Namespace: tplNamespace, Name: name}, tpl); err != nil {
		// The API's own text, `templates.template.openshift.io "x" not found`.
		return nil, err
	}
	processed, err := processTemplate(tpl, values)
	if err != nil {
		return nil, err
	}
	vm, err := firstVM(processed)
	if err != nil {
		return nil, err
	}
	vm.Namespace = vmNamespace
	setRunStrategy(vm, params.String(ParamRunStrategy))
	return vm, nil
}

// orActive is a trimmed namespace parameter, the active namespace when empty.
func orActive(namespace, active string) string {
	if ns := strings.TrimSpace(namespace); ns != "" {
		return ns
	}
	return active
}

// processTemplate processes tpl with the user's values as upstream does:
// a non-empty value replaces the parameter's, values for parameters the
// template does not declare are ignored, and a required parameter left
// without a value is an error even when it could be generated.
func processTemplate(tpl *templatev1.Template, values map[string]string) (*templatev1.Template, error) {
	given := map[string]string{}
	var missing []string
	for _, p := range tpl.Parameters {
		if v := values[p.Name]; v != "" {
			given[p.Name] = v
		} else if p.Value == "" && p.Required {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("required params are missing values: %s", strings.Join(missing, ", "))
	}
	return templateprocess.Process(tpl, templateprocess.Options{
		Values:                  given,
		IgnoreUnknownParameters: true,
		Random:                  rand.NewSource(time.Now().UnixNano()),
	})
}

// firstVM is the first kubevirt.io/v1 VirtualMachine among the processed
// template's objects.
func firstVM(tpl *templatev1.Template) (*kubevirtv1.VirtualMachine, error) {
	for _, item := range tpl.Objects {
		u, ok := item.Object.(runtime.Unstructured)
		if !ok || objectKind(u) != vmKind {
			continue
		}
		// Through JSON, as upstream decodes the object.
		data, err := json.Marshal(u.UnstructuredContent())
		if err != nil {
			return nil, fmt.Errorf("encoding the VirtualMachine of template %s: %w", tpl.Name, err)
		}
		vm := &kubevirtv1.VirtualMachine{}
		if err := json.Unmarshal(data, vm); err != nil {
			return nil, fmt.Errorf("decoding the VirtualMachine of template %s: %w", tpl.Name, err)
		}
		return vm, nil
	}
	return nil, errors.New("no VM object found in the template")
}

func objectKind(u runtime.Unstructured) schema.GroupVersionKind {
	return u.GetObjectKind().GroupVersionKind()
}
