package copytemplate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

const commonTemplate = `kind: Template
apiVersion: template.openshift.io/v1
metadata:
  name: fedora-server-small
  namespace: openshift
  ownerReferences:
    - {apiVersion: ssp.kubevirt.io/v1beta3, kind: SSP, name: ssp, uid: ssp-uid}
  labels:
    os.template.kubevirt.io/fedora38: 'true'
    flavor.template.kubevirt.io/small: 'true'
    workload.template.kubevirt.io/server: 'true'
    template.kubevirt.io/type: base
    template.kubevirt.io/version: v0.25.0
    app.kubernetes.io/name: common-templates
    app.kubernetes.io/managed-by: ssp-operator
    kept: label
  annotations:
    template.kubevirt.io/provider: KubeVirt
    openshift.io/documentation-url: https://kubevirt.io
    template.kubevirt.io/deprecated: 'false'
    name.os.template.kubevirt.io/fedora38: Fedora 38
    description: kept
parameters:
  - name: NAME
    generate: expression
    from: 'fedora-[a-z0-9]{16}'
objects:
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: ${NAME}
      labels:
        app: ${NAME}
        vm.kubevirt.io/template: fedora-server-small
        vm.kubevirt.io/template.version: v0.25.0
        vm.kubevirt.io/template.revision: '1'
      annotations:
        vm.kubevirt.io/flavor: small
        vm.kubevirt.io/os: fedora
        vm.kubevirt.io/workload: server
        kept: annotation
    spec:
      template:
        metadata:
          labels:
            kubevirt.io/domain: ${NAME}
            kubevirt.io/size: small
            kept: pod-label
          annotations:
            vm.kubevirt.io/os: fedora
        spec:
          domain:
            devices: {}
`

func getTemplate(t *testing.T, env stepenv.Env, namespace, name string) *templatev1.Template {
	t.Helper()
	tpl := &templatev1.Template{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, tpl))
	return tpl
}

// object decodes tpl's object i.
func object(t *testing.T, tpl *templatev1.Template, i int) map[string]any {
	t.Helper()
	m := map[string]any{}
	require.NoError(t, json.Unmarshal(tpl.Objects[i].Raw, &m))
	return m
}

func params(strings map[string]string) stepenv.Params { return stepenv.Params{Strings: strings} }

func TestCopyCommonTemplate(t *testing.T) {
	env, log := tasktest.Env(t, tasktest.Template(t, commonTemplate))
	err := copyTemplate(context.Background(), env, params(map[string]string{
		ParamSourceTemplateName: " fedora-server-small ", ParamSourceTemplateNamespace: "openshift",
		ParamTargetTemplateName: " my-fedora ", ParamTargetTemplateNamespace: " mine ",
	}), outputformat.YAML)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"name": "my-fedora", "namespace": "mine"}, env.Results.Values)
	assert.True(t, strings.HasPrefix(log.String(), "Template mine/my-fedora created\napiVersion: template.openshift.io/v1\nkind: Template\n"), log.String())

	tpl := getTemplate(t, env, "mine", "my-fedora")
	assert.Equal(t, map[string]string{"template.kubevirt.io/type": "vm", "kept": "label"}, tpl.Labels)
	assert.Equal(t, map[string]string{"name.os.template.kubevirt.io/fedora38": "Fedora 38", "description": "kept"}, tpl.Annotations)
	assert.Empty(t, tpl.OwnerReferences, "the copy is the user's")
	assert.Equal(t, "NAME", tpl.Parameters[0].Name)

	vm := object(t, tpl, 0)
	meta := vm["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"app": "${NAME}", "vm.kubevirt.io/template": "my-fedora"}, meta["labels"])
	assert.Equal(t, map[string]any{"kept": "annotation"}, meta["annotations"])
	podMeta := vm["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)
	assert.Equal(t, map[string]any{"kept": "pod-label"}, podMeta["labels"])
	assert.Equal(t, map[string]any{}, podMeta["annotations"])
}

func TestCopyUserTemplateKeepsIt(t *testing.T) {
	user := tasktest.Template(t, strings.Replace(commonTemplate, "template.kubevirt.io/type: base", "template.kubevirt.io/type: vm", 1))
	user.Namespace = "active"
	env, _ := tasktest.Env(t, user)
	require.NoError(t, Task.Run(context.Background(), env, params(map[string]string{
		ParamSourceTemplateName: "fedora-server-small", ParamTargetTemplateName: "copy",
	})))
	tpl := getTemplate(t, env, "active", "copy")
	assert.Equal(t, user.Labels, tpl.Labels)
	assert.Equal(t, user.Annotations, tpl.Annotations)
	assert.Equal(t, object(t, user, 0), object(t, tpl, 0))
	assert.Equal(t, map[string]string{"name": "copy", "namespace": "active"}, env.Results.Values)
}

func TestCopyWithoutLabelsOrTargetName(t *testing.T) {
	plain := &templatev1.Template{}
	plain.Name, plain.Namespace = "plain", "active"
	env, _ := tasktest.Env(t, plain)
	require.NoError(t, Task.Run(context.Background(), env, params(map[string]string{ParamSourceTemplateName: "plain"})))
	name := env.Results.Values["name"]
	assert.True(t, strings.HasPrefix(name, "plain") && name != "plain", "the copy's name is generated from the source's: %s", name)
	assert.Equal(t, map[string]string{"template.kubevirt.io/type": "vm"}, getTemplate(t, env, "active", name).Labels)
}

func TestCopyCommonTemplateToAGeneratedName(t *testing.T) {
	env, _ := tasktest.Env(t, tasktest.Template(t, commonTemplate))
	require.NoError(t, Task.Run(context.Background(), env, params(map[string]string{
		ParamSourceTemplateName: "fedora-server-small", ParamSourceTemplateNamespace: "openshift",
	})))
	tpl := getTemplate(t, env, "active", env.Results.Values["name"])
	labels := object(t, tpl, 0)["metadata"].(map[string]any)["labels"]
	assert.Equal(t, "", labels.(map[string]any)["vm.kubevirt.io/template"], "upstream labels with the target name, empty when generated")
}

func TestCopyAllowReplace(t *testing.T) {
	source := tasktest.Template(t, commonTemplate)
	existing := source.DeepCopy()
	existing.Name, existing.Namespace, existing.Objects = "my-fedora", "active", []runtime.RawExtension{}
	p := map[string]string{
		ParamSourceTemplateName: "fedora-server-small", ParamSourceTemplateNamespace: "openshift", ParamTargetTemplateName: "my-fedora",
	}

	env, _ := tasktest.Env(t, source, existing)
	require.EqualError(t, Task.Run(context.Background(), env, params(p)), `templates.template.openshift.io "my-fedora" already exists`)
	assert.Empty(t, env.Results.Values)

	p[ParamAllowReplace] = "true"
	require.NoError(t, Task.Run(context.Background(), env, params(p)))
	assert.Len(t, getTemplate(t, env, "active", "my-fedora").Objects, 1, "the template is replaced")
	require.NoError(t, Task.Run(context.Background(), env, params(p)), "replacing again")

	env, _ = tasktest.Env(t, source)
	require.NoError(t, Task.Run(context.Background(), env, params(p)), "nothing to replace")
	assert.Equal(t, map[string]string{"name": "my-fedora", "namespace": "active"}, env.Results.Values)
}

func TestCopyErrors(t *testing.T) {
	service := tasktest.Template(t, commonTemplate)
	service.Name, service.Namespace = "service", "active"
	service.Objects = []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}`)}}
	empty := service.DeepCopy()
	empty.Name, empty.Objects = "empty", nil
	for name, tc := range map[string]struct {
		params map[string]string
		want   string
	}{
		"no source":  {map[string]string{ParamSourceTemplateName: "  "}, "source-template-name param has to be specified"},
		"not found":  {map[string]string{ParamSourceTemplateName: "cirros-vm-template"}, `templates.template.openshift.io "cirros-vm-template" not found`},
		"not a VM":   {map[string]string{ParamSourceTemplateName: "service"}, "template service contains unexpected object: v1, Service"},
		"no objects": {map[string]string{ParamSourceTemplateName: "empty"}, "template empty contains no objects"},
	} {
		t.Run(name, func(t *testing.T) {
			env, _ := tasktest.Env(t, service, empty)
			require.EqualError(t, Task.Run(context.Background(), env, params(tc.params)), tc.want)
			assert.Empty(t, env.Results.Values)
		})
	}
}
