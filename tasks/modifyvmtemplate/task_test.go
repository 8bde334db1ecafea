package modifyvmtemplate

import (
	"bytes"
	"context"
	"strings"
	"testing"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/outputformat"
	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

const vmTemplate = `kind: Template
apiVersion: template.openshift.io/v1
metadata:
  name: cirros-vm-template
  namespace: active
  labels:
    template.kubevirt.io/type: vm
  annotations:
    description: VM template example
parameters:
  - name: NAME
    description: Name for the new VM
    required: true
  - name: DATA_SOURCE_NAME
    value: cirros
objects:
  - apiVersion: v1
    kind: Service
    metadata:
      name: ssh
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: '${NAME}'
      labels:
        app: '${NAME}'
    spec:
      dataVolumeTemplates:
        - metadata:
            name: '${NAME}'
          spec:
            sourceRef:
              kind: DataSource
              name: '${DATA_SOURCE_NAME}'
            storage: {}
      runStrategy: Halted
      template:
        spec:
          domain:
            devices:
              disks:
                - name: rootdisk
                  disk: {bus: virtio}
                - name: cloudinitdisk
                  disk: {bus: virtio}
          volumes:
            - name: rootdisk
              dataVolume:
                name: '${NAME}'
            - name: cloudinitdisk
              cloudInitNoCloud:
                userData: '#cloud-config'
`

// testEnv is a task environment on a fake cluster holding vmTemplate.
func testEnv(t *testing.T) (stepenv.Env, *bytes.Buffer) {
	t.Helper()
	return tasktest.Env(t, tasktest.Template(t, vmTemplate))
}

// stored is the template and its VM as the fake cluster holds them.
func stored(t *testing.T, env stepenv.Env) (*templatev1.Template, *kubevirtv1.VirtualMachine) {
	t.Helper()
	tpl := &templatev1.Template{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: "active", Name: "cirros-vm-template"}, tpl))
	vm, i, err := firstVM(tpl)
	require.NoError(t, err)
	require.Equal(t, 1, i)
	return tpl, vm
}

func taskParams(strings map[string]string, arrays map[string][]string) stepenv.Params {
	if _, ok := strings[ParamTemplateName]; !ok {
		strings[ParamTemplateName] = "cirros-vm-template"
	}
	return stepenv.Params{Strings: strings, Arrays: arrays}
}

func TestModifyTemplateAndVM(t *testing.T) {
	env, log := testEnv(t)
	p := taskParams(map[string]string{
		ParamTemplateName: " cirros-vm-template ", ParamCPUSockets: "2", ParamCPUCores: "3", ParamCPUThreads: "0", ParamMemory: "2Gi",
		ParamDeleteDisks: "false", ParamDeleteVolumes: "false", ParamDeleteDatavolumeTemplate: "false",
		ParamDeleteTemplateParameters: "false", ParamDeleteTemplate: "false",
	}, map[string][]string{
		ParamTemplateLabels:      {"team : blue", "tier:gold"},
		ParamTemplateAnnotations: {" description : edited ", "long:a", "b"},
		ParamVMLabels:            {"app:fixed"},
		ParamVMAnnotations:       {"note:x"},
		ParamDisks:               {`{"name": "rootdisk", "disk": {"bus": "sata"}}`, `{"name": "cdrom", "cdrom": {"bus": "sata"}}`},
		ParamVolumes:             {`{"name": "cdrom", "containerDisk": {"image": "kubevirt/virtio-container-disk"}}`},
		ParamDatavolumeTemplates: {`{"metadata": {"name": "extra"}, "spec": {"source": {"http": {"url": "http://x"}}}}`},
		ParamTemplateParameters:  {`{"name": "NAME", "description": "VM name"}`, `{"name": "NEW", "value": "v"}`},
	})
	require.NoError(t, modifyTemplate(context.Background(), env, p, outputformat.YAML))
	assert.Equal(t, map[string]string{"name": "cirros-vm-template", "namespace": "active"}, env.Results.Values)
	assert.True(t, strings.HasPrefix(log.String(), "Template active/cirros-vm-template updated\napiVersion: template.openshift.io/v1\nkind: Template\n"), log.String())

	tpl, vm := stored(t, env)
	assert.Equal(t, map[string]string{"template.kubevirt.io/type": "vm", "team": "blue", "tier": "gold"}, tpl.Labels)
	assert.Equal(t, map[string]string{"description": "edited", "long": "a b"}, tpl.Annotations)
	assert.Equal(t, []templatev1.Parameter{{Name: "NAME", Description: "VM name"}, {Name: "DATA_SOURCE_NAME", Value: "cirros"}, {Name: "NEW", Value: "v"}}, tpl.Parameters)
	assert.Equal(t, map[string]string{"app": "fixed"}, vm.Labels)
	assert.Equal(t, map[string]string{"note": "x"}, vm.Annotations)

	domain := vm.Spec.Template.Spec.Domain
	assert.Equal(t, kubevirtv1.CPU{Sockets: 2, Cores: 3}, *domain.CPU)
	assert.Equal(t, resource.MustParse("2Gi"), domain.Resources.Requests["memory"])
	require.Len(t, domain.Devices.Disks, 3)
	assert.Equal(t, kubevirtv1.DiskBusSATA, domain.Devices.Disks[0].Disk.Bus, "a disk of the same name is replaced")
	assert.Equal(t, "cdrom", domain.Devices.Disks[2].Name, "a new disk is appended")
	assert.Equal(t, []string{"rootdisk", "cloudinitdisk", "cdrom"}, volumeNames(vm))
	require.Len(t, vm.Spec.DataVolumeTemplates, 2)
	assert.Equal(t, "extra", vm.Spec.DataVolumeTemplates[1].Name)

	// The Service before the VM is left as it was.
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"ssh"}}`, string(tpl.Objects[0].Raw))

	// Doing it again changes nothing.
	require.NoError(t, modifyTemplate(context.Background(), env, p, ""))
	again, againVM := stored(t, env)
	assert.Equal(t, tpl.Parameters, again.Parameters)
	assert.Equal(t, vm.Spec, againVM.Spec)
}

func volumeNames(vm *kubevirtv1.VirtualMachine) []string {
	var names []string
	for _, v := range vm.Spec.Template.Spec.Volumes {
		names = append(names, v.Name)
	}
	return names
}

func TestModifyLeavesTheVMAsItWasWithoutChanges(t *testing.T) {
	env, _ := testEnv(t)
	_, before := stored(t, env)
	require.NoError(t, Task.Run(context.Background(), env, taskParams(map[string]string{ParamCPUSockets: "0"}, nil)))
	tpl, after := stored(t, env)
	assert.Equal(t, &kubevirtv1.CPU{}, after.Spec.Template.Spec.Domain.CPU, "upstream always leaves a cpu")
	after.Spec.Template.Spec.Domain.CPU = nil
	assert.Equal(t, before.Spec, after.Spec)
	assert.Equal(t, map[string]string{"template.kubevirt.io/type": "vm"}, tpl.Labels)
	assert.Len(t, tpl.Parameters, 2)
}

func TestModifyDeletes(t *testing.T) {
	env, _ := testEnv(t)
	p := taskParams(map[string]string{ParamDeleteDatavolumeTemplate: "true", ParamDeleteTemplateParameters: "true"}, nil)
	require.NoError(t, Task.Run(context.Background(), env, p))
	tpl, vm := stored(t, env)
	assert.Empty(t, tpl.Parameters)
	assert.Empty(t, vm.Spec.DataVolumeTemplates)
	assert.Equal(t, []string{"cloudinitdisk"}, volumeNames(vm), "the data volume's volume goes with it")
	require.Len(t, vm.Spec.Template.Spec.Domain.Devices.Disks, 1)
	assert.Equal(t, "cloudinitdisk", vm.Spec.Template.Spec.Domain.Devices.Disks[0].Name)

	env, _ = testEnv(t)
	p = taskParams(map[string]string{ParamDeleteDisks: "True", ParamDeleteVolumes: "1"}, map[string][]string{
		ParamDisks: {`{"name": "only"}`},
	})
	require.NoError(t, Task.Run(context.Background(), env, p))
	_, vm = stored(t, env)
	assert.Empty(t, vm.Spec.Template.Spec.Volumes)
	assert.Equal(t, []kubevirtv1.Disk{{Name: "only"}}, vm.Spec.Template.Spec.Domain.Devices.Disks)
	assert.Len(t, vm.Spec.DataVolumeTemplates, 1)
}

func TestDeleteTemplate(t *testing.T) {
	env, _ := testEnv(t)
	p := taskParams(map[string]string{ParamDeleteTemplate: "true", ParamCPUCores: "4"}, nil)
	require.NoError(t, Task.Run(context.Background(), env, p))
	assert.Equal(t, map[string]string{"name": "cirros-vm-template", "namespace": "active"}, env.Results.Values)
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: "active", Name: "cirros-vm-template"}, &templatev1.Template{})
	assert.True(t, apierrors.IsNotFound(err))

	env.Results.Values = map[string]string{}
	require.EqualError(t, Task.Run(context.Background(), env, p), `templates.template.openshift.io "cirros-vm-template" not found`)
	assert.Empty(t, env.Results.Values)
}

func TestModifyTemplateWithoutVM(t *testing.T) {
	tpl := &templatev1.Template{}
	tpl.Name, tpl.Namespace = "empty", "active"
	env, _ := tasktest.Env(t, tpl)
	require.EqualError(t, Task.Run(context.Background(), env, taskParams(map[string]string{ParamTemplateName: "empty"}, nil)),
		"no VM object found in the template")
}
