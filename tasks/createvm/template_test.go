package createvm

import (
	"context"
	"strings"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

const cirrosTemplate = `kind: Template
apiVersion: template.openshift.io/v1
metadata:
  name: cirros-vm-template
  namespace: templates
  labels:
    os.template.kubevirt.io/centos7.0: 'true'
    vm.kubevirt.io/template: centos-server-tiny-v0.7.0
    template.kubevirt.io/type: vm
parameters:
  - name: NAME
    description: Name for the new VM
    required: true
  - name: DESCRIPTION
    value: default description
objects:
  - apiVersion: v1
    kind: Service
    metadata:
      name: '${NAME}-ssh'
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      labels:
        app: '${NAME}'
        vm.kubevirt.io/template: centos-server-tiny
        vm.kubevirt.io/template.revision: '147'
      annotations:
        description: '${DESCRIPTION}'
      name: '${NAME}'
      namespace: somewhere-else
    spec:
      running: false
      template:
        metadata:
          labels:
            kubevirt.io/domain: '${NAME}'
        spec:
          domain:
            devices: {}
            resources:
              requests:
                memory: 128Mi
          hostname: '${NAME}'
`

func templateParams(strings map[string]string, values ...string) stepenv.Params {
	if strings[ParamTemplateName] == "" {
		strings[ParamTemplateName] = "cirros-vm-template"
	}
	return stepenv.Params{Strings: strings, Arrays: map[string][]string{ParamTemplateParams: values}}
}

func TestFromTemplateCreatesTheTemplatesVM(t *testing.T) {
	env, log := tasktest.Env(t, tasktest.Template(t, cirrosTemplate))
	p := templateParams(map[string]string{ParamTemplateName: " cirros-vm-template ", ParamTemplateNamespace: " templates ", ParamVMNamespace: "vms"},
		"NAME:my-vm", "DESCRIPTION:a", "description", "with spaces", "UNKNOWN:ignored")
	require.NoError(t, createFromTemplate(context.Background(), env, p, outputformat.YAML))

	vm := getVM(t, env, "vms", "my-vm")
	assert.Equal(t, map[string]string{
		"app": "my-vm", "vm.kubevirt.io/template": "centos-server-tiny", "vm.kubevirt.io/template.revision": "147",
	}, vm.Labels, "the template's labels, as upstream creates them")
	assert.Equal(t, map[string]string{"kubevirt.io/domain": "my-vm"}, vm.Spec.Template.ObjectMeta.Labels)
	assert.Equal(t, "a description with spaces", vm.Annotations["description"])
	assert.Equal(t, "my-vm", vm.Spec.Template.Spec.Hostname)
	assert.False(t, *vm.Spec.Running)
	assert.Equal(t, map[string]string{"name": "my-vm", "namespace": "vms"}, env.Results.Values)
	assert.Contains(t, log.String(), "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\n")
}

func TestFromTemplateDefaultsToTheActiveNamespace(t *testing.T) {
	tpl := tasktest.Template(t, cirrosTemplate)
	tpl.Namespace = "active"
	env, _ := tasktest.Env(t, tpl)
	p := templateParams(map[string]string{ParamRunStrategy: "Always"}, "NAME:my-vm")
	require.NoError(t, FromTemplate.Run(context.Background(), env, p))

	vm := getVM(t, env, "active", "my-vm")
	assert.Nil(t, vm.Spec.Running)
	assert.Equal(t, kubevirtv1.RunStrategyAlways, *vm.Spec.RunStrategy)
	assert.Equal(t, "default description", vm.Annotations["description"])
	assert.Equal(t, map[string]string{"name": "my-vm", "namespace": "active"}, env.Results.Values)
}

func TestFromTemplateIsIdempotent(t *testing.T) {
	env, _ := tasktest.Env(t, tasktest.Template(t, cirrosTemplate))
	p := templateParams(map[string]string{ParamTemplateNamespace: "templates"}, "NAME:my-vm")
	require.NoError(t, FromTemplate.Run(context.Background(), env, p))
	require.NoError(t, FromTemplate.Run(context.Background(), env, p))

	other := templateParams(map[string]string{ParamTemplateNamespace: "templates"}, "NAME:my-vm", "DESCRIPTION:other")
	require.EqualError(t, FromTemplate.Run(context.Background(), env, other), `virtualmachines.kubevirt.io "my-vm" already exists`)
}

func TestFromTemplateErrors(t *testing.T) {
	noVM := tasktest.Template(t, cirrosTemplate)
	noVM.Name = "no-vm"
	noVM.Objects = noVM.Objects[:1]
	generated := tasktest.Template(t, strings.Replace(cirrosTemplate, "required: true", "required: true\n    generate: expression\n    from: 'vm-[a-z]{5}'", 1))
	generated.Name = "generated"
	for name, tc := range map[string]struct {
		params stepenv.Params
		want   string
	}{
		"no template name": {stepenv.Params{Strings: map[string]string{ParamTemplateName: "  "}}, "only one of vm-manifest, template-name or virtctl should be specified"},
		"bad params": {
			templateParams(map[string]string{}, "InvalidDescription", "NAME:x"),
			`invalid template-params: no key found before "InvalidDescription"; pair should be in "KEY:VAL" format`,
		},
		"empty key":   {templateParams(map[string]string{}, " :x"), `invalid template-params: no key found before " :x"; pair should be in "KEY:VAL" format`},
		"no template": {templateParams(map[string]string{ParamTemplateNamespace: "templates", ParamTemplateName: "non-existent-template"}), `templates.template.openshift.io "non-existent-template" not found`},
		"missing":     {templateParams(map[string]string{ParamTemplateNamespace: "templates"}), "required params are missing values: NAME"},
		"empty value": {templateParams(map[string]string{ParamTemplateNamespace: "templates"}, "NAME:"), "required params are missing values: NAME"},
		"generated":   {templateParams(map[string]string{ParamTemplateNamespace: "templates", ParamTemplateName: "generated"}), "required params are missing values: NAME"},
		"no VM":       {templateParams(map[string]string{ParamTemplateNamespace: "templates", ParamTemplateName: "no-vm"}, "NAME:x"), "no VM object found in the template"},
	} {
		t.Run(name, func(t *testing.T) {
			env, _ := tasktest.Env(t, tasktest.Template(t, cirrosTemplate), noVM, generated)
			require.EqualError(t, FromTemplate.Run(context.Background(), env, tc.params), tc.want)
			assert.Empty(t, env.Results.Values)
		})
	}
}

func TestFromTemplateProcessingError(t *testing.T) {
	bad := tasktest.Template(t, cirrosTemplate)
	bad.Parameters = append(bad.Parameters, templatev1.Parameter{Name: "X", Generate: "nonsense"})
	env, _ := tasktest.Env(t, bad)
	err := FromTemplate.Run(context.Background(), env, templateParams(map[string]string{ParamTemplateNamespace: "templates"}, "NAME:x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Template.template.openshift.io "cirros-vm-template" is invalid`)
	assert.Contains(t, err.Error(), "Unknown generator name 'nonsense' for parameter X")
}

func TestFirstVMSkipsOtherObjects(t *testing.T) {
	tpl := tasktest.Template(t, cirrosTemplate)
	processed, err := processTemplate(tpl, map[string]string{"NAME": "x"})
	require.NoError(t, err)
	vm, err := firstVM(processed)
	require.NoError(t, err)
	assert.Equal(t, "x", vm.Name)
	assert.Empty(t, vm.Namespace, "processing drops a fixed namespace")

	_, err = firstVM(&templatev1.Template{Objects: []runtime.RawExtension{}})
	require.EqualError(t, err, "no VM object found in the template")
}
