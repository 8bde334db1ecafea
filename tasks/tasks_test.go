package tasks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// taskShape is what a Task keeps of upstream's: its parameter and result
// names in order, its step's name, command and environment variable names
// (the step programs read exactly those), and which image runs it.
type taskShape struct {
	params   []string
	results  []string
	step     string
	command  string
	env      []string
	diskVirt bool
}

var upstreamTasks = map[string]taskShape{
	"cleanup-vm": {
		params: []string{"vmName", "vmNamespace", "stop", "delete", "timeout", "secretName", "command", "args", "script"},
		step:   "execute-in-vm", command: "entrypoint",
		env: []string{"COMMAND", "VM_NAME", "VM_NAMESPACE", "EXECUTE_SCRIPT", "CONNECTION_SECRET_NAME"},
	},
	"copy-template": {
		params:  []string{"sourceTemplateName", "sourceTemplateNamespace", "targetTemplateName", "targetTemplateNamespace", "allowReplace"},
		results: []string{"name", "namespace"}, step: "copytemplate", command: "copy-template",
		env: []string{"SOURCE_TEMPLATE_NAME", "SOURCE_TEMPLATE_NAMESPACE", "TARGET_TEMPLATE_NAME", "TARGET_TEMPLATE_NAMESPACE", "ALLOW_REPLACE", "POD_NAMESPACE"},
	},
	"create-vm-from-manifest": {
		params:  []string{"manifest", "virtctl", "namespace", "startVM", "runStrategy", "setOwnerReference"},
		results: []string{"name", "namespace"}, step: "createvm", command: "create-vm",
		env: []string{"VM_MANIFEST", "VM_NAMESPACE", "VIRTCTL", "START_VM", "SET_OWNER_REFERENCE", "RUN_STRATEGY", "POD_NAMESPACE", "POD_NAME"},
	},
	"create-vm-from-template": {
		params:  []string{"templateName", "templateNamespace", "templateParams", "vmNamespace", "startVM", "runStrategy"},
		results: []string{"name", "namespace"}, step: "createvm", command: "create-vm",
		env: []string{"TEMPLATE_NAME", "TEMPLATE_NAMESPACE", "VM_NAMESPACE", "START_VM", "RUN_STRATEGY", "POD_NAMESPACE"},
	},
	"disk-virt-customize": {
		params: []string{"pvc", "virtCommands", "verbose", "additionalVirtOptions"},
		step:   "run-virt-customize", command: "entrypoint", diskVirt: true,
		env: []string{"COMMAND", "VIRT_COMMANDS", "ADDITIONAL_VIRT_OPTIONS", "LIBGUESTFS_BACKEND"},
	},
	"disk-virt-sysprep": {
		params: []string{"pvc", "virtCommands", "verbose", "additionalVirtOptions"},
		step:   "run-virt-sysprep", command: "entrypoint", diskVirt: true,
		env: []string{"COMMAND", "VIRT_COMMANDS", "ADDITIONAL_VIRT_OPTIONS", "LIBGUESTFS_BACKEND"},
	},
	"execute-in-vm": {
		params: []string{"vmName", "vmNamespace", "secretName", "command", "args", "script"},
		step:   "execute-in-vm", command: "entrypoint",
		env: []string{"COMMAND", "VM_NAME", "VM_NAMESPACE", "EXECUTE_SCRIPT", "CONNECTION_SECRET_NAME"},
	},
	"generate-ssh-keys": {
		params:  []string{"publicKeySecretName", "publicKeySecretNamespace", "privateKeySecretName", "privateKeySecretNamespace", "privateKeyConnectionOptions", "additionalSSHKeygenOptions"},
		results: []string{"publicKeySecretName", "publicKeySecretNamespace", "privateKeySecretName", "privateKeySecretNamespace"},
		step:    "generate-ssh-keys", command: "entrypoint",
		env: []string{"COMMAND", "PUBLIC_KEY_SECRET_NAME", "PUBLIC_KEY_SECRET_NAMESPACE", "PRIVATE_KEY_SECRET_NAME", "PRIVATE_KEY_SECRET_NAMESPACE", "ADDITIONAL_SSH_KEYGEN_OPTIONS"},
	},
	"modify-data-object": {
		params:  []string{"manifest", "namespace", "waitForSuccess", "allowReplace", "deleteObject", "deleteObjectKind", "deleteObjectName", "timeout", "setOwnerReference"},
		results: []string{"name", "namespace"}, step: "modify-data-object", command: "modify-data-object",
		env: []string{"DATA_OBJECT_MANIFEST", "DATA_OBJECT_NAMESPACE", "WAIT_FOR_SUCCESS", "ALLOW_REPLACE", "DELETE_OBJECT", "DELETE_OBJECT_KIND", "DELETE_OBJECT_NAME", "SET_OWNER_REFERENCE", "TIMEOUT", "POD_NAMESPACE", "POD_NAME"},
	},
	"modify-vm-template": {
		params: []string{"templateName", "templateNamespace", "cpuSockets", "cpuCores", "cpuThreads", "memory", "templateLabels", "templateAnnotations",
			"vmLabels", "vmAnnotations", "disks", "deleteDisks", "volumes", "datavolumeTemplates", "deleteDatavolumeTemplate", "deleteVolumes",
			"templateParameters", "deleteTemplateParameters", "deleteTemplate"},
		results: []string{"name", "namespace"}, step: "modifyvmtemplate", command: "modify-vm-template",
		env: []string{"TEMPLATE_NAME", "TEMPLATE_NAMESPACE", "CPU_SOCKETS", "CPU_CORES", "CPU_THREADS", "MEMORY", "DELETE_DATAVOLUME_TEMPLATE",
			"DELETE_DISKS", "DELETE_VOLUMES", "DELETE_TEMPLATE_PARAMETERS", "DELETE_TEMPLATE", "POD_NAMESPACE"},
	},
	"wait-for-vmi-status": {
		params: []string{"vmiName", "vmiNamespace", "successCondition", "failureCondition"},
		step:   "wait-for-vmi-status", command: "entrypoint",
		env: []string{"COMMAND", "VMI_NAME", "VMI_NAMESPACE", "SUCCESS_CONDITION", "FAILURE_CONDITION"},
	},
}

// tasksWithRBAC are the tasks SSP gives a role and a service account; the
// disk-virt ones touch only the claim their pod mounts.
var tasksWithRBAC = []string{
	"cleanup-vm", "copy-template", "create-vm-from-manifest", "create-vm-from-template", "execute-in-vm",
	"generate-ssh-keys", "modify-data-object", "modify-vm-template", "wait-for-vmi-status",
}

var testImages = Images{Tasks: "registry.test/tekton-tasks:v1", DiskVirt: "registry.test/tekton-tasks-disk-virt:v1"}

func render(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	objs, err := Manifests(testImages, "tasks-ns")
	require.NoError(t, err)
	return objs
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// names reads the "name" of every entry of the list at fields.
func names(t *testing.T, obj map[string]any, fields ...string) []string {
	t.Helper()
	list, _, err := unstructured.NestedSlice(obj, fields...)
	require.NoError(t, err)
	var out []string
	for _, e := range list {
		out = append(out, e.(map[string]any)["name"].(string))
	}
	return out
}

func TestTaskNamesAreUpstreams(t *testing.T) {
	want := make([]string, 0, len(upstreamTasks))
	for name := range upstreamTasks {
		want = append(want, name)
	}
	assert.ElementsMatch(t, want, TaskNames())
	assert.IsIncreasing(t, TaskNames())
}

func TestTasksKeepUpstreamsShape(t *testing.T) {
	objs := render(t)
	for name, shape := range upstreamTasks {
		t.Run(name, func(t *testing.T) {
			task := find(objs, "Task", name)
			require.NotNil(t, task)
			assert.Equal(t, "tekton.dev/v1", task.GetAPIVersion())
			assert.Equal(t, "tasks-ns", task.GetNamespace())
			assert.Equal(t, shape.params, names(t, task.Object, "spec", "params"))
			assert.Equal(t, shape.results, names(t, task.Object, "spec", "results"))
			steps, _, _ := unstructured.NestedSlice(task.Object, "spec", "steps")
			require.Len(t, steps, 1)
			step := steps[0].(map[string]any)
			assert.Equal(t, shape.step, step["name"])
			assert.Equal(t, []any{shape.command}, step["command"])
			assert.Equal(t, shape.env, names(t, step, "env"))
			wantImage := testImages.Tasks
			if shape.diskVirt {
				wantImage = testImages.DiskVirt
			}
			assert.Equal(t, wantImage, step["image"])
		})
	}
}

func TestTasksCarryNoUpstreamMaintainersNorDevicePlugins(t *testing.T) {
	for _, o := range render(t) {
		for key := range o.GetAnnotations() {
			assert.False(t, strings.HasPrefix(key, "artifacthub.io/"), "%s %s: %s", o.GetKind(), o.GetName(), key)
		}
		data, err := yaml.Marshal(o.Object)
		require.NoError(t, err)
		assert.NotContains(t, string(data), "devices.kubevirt.io", o.GetName())
		assert.NotContains(t, string(data), "quay.io", o.GetName())
	}
}

func TestTaskVersionLabelsAreUpstreams(t *testing.T) {
	objs := render(t)
	for name := range upstreamTasks {
		want := "v0.26.0"
		if name == "create-vm-from-template" || name == "copy-template" || name == "modify-vm-template" {
			want = "v0.22.0"
		}
		assert.Equal(t, want, find(objs, "Task", name).GetLabels()["app.kubernetes.io/version"], name)
	}
}

func TestManifestsReplaceEveryPlaceholder(t *testing.T) {
	for _, o := range render(t) {
		data, err := yaml.Marshal(o.Object)
		require.NoError(t, err)
		for _, p := range []string{TasksImagePlaceholder, DiskVirtImagePlaceholder, "__TEKTON"} {
			assert.NotContains(t, string(data), p, "%s %s", o.GetKind(), o.GetName())
		}
	}
}

func TestManifestsNeedImagesAndNamespace(t *testing.T) {
	_, err := Manifests(Images{Tasks: "a"}, "ns")
	assert.ErrorContains(t, err, "both images are required")
	_, err = Manifests(testImages, "")
	assert.ErrorContains(t, err, "a namespace is required")
}
