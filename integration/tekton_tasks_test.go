//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks"
)

// TestSSPInstallsTheTektonTasks checks what `kubectl get tasks -n
// virtflow-pipelines` shows once SSP is Available: every task, each
// running the step images the node imported, and the example pipelines.
func TestSSPInstallsTheTektonTasks(t *testing.T) {
	n := onNode(t)
	var names []string
	require.Eventually(t, func() bool {
		out, err := n.kubectl("get", "tasks", "-n", pipelinesNS, "-o", "jsonpath={.items[*].metadata.name}").Output()
		names = strings.Fields(string(out))
		return err == nil && len(names) == len(tasks.TaskNames())
	}, 3*time.Minute, time.Second, "tasks installed: %v", names)
	require.ElementsMatch(t, tasks.TaskNames(), names)

	out, err := n.kubectl("get", "tasks", "-n", pipelinesNS, "-o", "jsonpath={.items[*].spec.steps[*].image}").Output()
	require.NoError(t, err)
	for _, image := range strings.Fields(string(out)) {
		require.True(t, strings.HasPrefix(image, "virtflow.local/tekton-tasks:") || strings.HasPrefix(image, "virtflow.local/tekton-tasks-disk-virt:"),
			"a step runs %s, not an image the node imported", image)
	}
	out, err = n.kubectl("get", "pipelines", "-n", pipelinesNS, "-o", "jsonpath={.items[*].metadata.name}").Output()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"server-deployer", "golden-image", "golden-image-durable"}, strings.Fields(string(out)))
}

// TestServerDeployerPipelineRunSucceeds runs the README's server-deployer
// example: a VM from the test guest's template, waited for, a command run
// in it over its serial console, and the VM deleted at the end.
func TestServerDeployerPipelineRunSucceeds(t *testing.T) {
	n := onNode(t)
	run := createExample(t, n, "examples/pipelines/server-deployer-run.yaml")
	pr := succeeded(t, n, pipelineRunGVK, pipelinesNS, run, 10*time.Minute)
	vm := runResults(pr)["vmName"]
	require.True(t, strings.HasPrefix(vm, "virtflow-test-guest-"), "the template named the VM: %q", vm)

	exec := childRun(t, n, taskRunGVK, pipelinesNS, run, "execute-in-vm", time.Second)
	require.Contains(t, stepLog(t, n, pipelinesNS, exec.GetName(), "execute-in-vm"), "Linux version",
		"cat /proc/version ran in the guest")
	err := n.c.Get(context.Background(), crclient.ObjectKey{Namespace: pipelinesNS, Name: vm}, &kubevirtv1.VirtualMachine{})
	require.True(t, apierrors.IsNotFound(err), "cleanup-vm deleted the VM: %v", err)
}

// TestGoldenImagePipelineCustomizesTheDiskTheGuestSees runs the
// golden-image example: a clone of the test guest's disk, customized by
// virt-customize (libguestfs in a pod), then booted, and the file it wrote
// read in the guest.
func TestGoldenImagePipelineCustomizesTheDiskTheGuestSees(t *testing.T) {
	n := onNode(t)
	run := createExample(t, n, "examples/pipelines/golden-image-run.yaml")
	pr := succeeded(t, n, pipelineRunGVK, pipelinesNS, run, 15*time.Minute)
	dv := runResults(pr)["dataVolumeName"]
	require.NotEmpty(t, dv)
	t.Cleanup(func() { _ = n.kubectl("delete", "datavolume", "-n", pipelinesNS, dv).Run() })

	exec := childRun(t, n, taskRunGVK, pipelinesNS, run, "execute-in-vm", time.Second)
	require.Contains(t, stepLog(t, n, pipelinesNS, exec.GetName(), "execute-in-vm"), "customized by virt-customize",
		"the guest reads the file virt-customize wrote")
}

// TestTemplateAndKeyTasksRunAsTaskRuns runs the tasks the pipelines do
// not: copy-template and modify-vm-template on a common template, and
// generate-ssh-keys.
func TestTemplateAndKeyTasksRunAsTaskRuns(t *testing.T) {
	n := onNode(t)
	copyRun := taskRun(t, n, "copy-template", map[string]any{
		"sourceTemplateName": "virtflow-test-guest-server-tiny", "sourceTemplateNamespace": "openshift",
		"targetTemplateName": "my-server",
	})
	keysRun := taskRun(t, n, "generate-ssh-keys", map[string]any{})

	copied := succeeded(t, n, taskRunGVK, pipelinesNS, copyRun, 3*time.Minute)
	require.Equal(t, map[string]string{"name": "my-server", "namespace": pipelinesNS}, runResults(copied))
	t.Cleanup(func() {
		_ = n.kubectl("delete", "template", "-n", pipelinesNS, "--ignore-not-found", "my-server").Run()
	})
	modifyRun := taskRun(t, n, "modify-vm-template", map[string]any{
		"templateName": "my-server", "memory": "384Mi", "templateLabels": []any{"team:blue"},
	})
	succeeded(t, n, taskRunGVK, pipelinesNS, modifyRun, 3*time.Minute)
	out, err := n.kubectl("get", "template", "-n", pipelinesNS, "my-server", "-o",
		"jsonpath={.metadata.labels.team} {.objects[0].spec.template.spec.domain.resources.requests.memory}").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "blue 384Mi", string(out), "upstream's modify-vm-template sets the memory request")
	keys := succeeded(t, n, taskRunGVK, pipelinesNS, keysRun, 3*time.Minute)
	for _, name := range []string{"publicKeySecretName", "privateKeySecretName"} {
		secret := runResults(keys)[name]
		require.NotEmpty(t, secret, name)
		require.NoError(t, n.kubectl("get", "secret", "-n", pipelinesNS, secret).Run(), name)
		t.Cleanup(func() { _ = n.kubectl("delete", "secret", "-n", pipelinesNS, secret).Run() })
	}
}

// taskRun creates a TaskRun of an installed task, as its own service
// account where it has one, in virtflow-pipelines, and returns its name.
func taskRun(t *testing.T, n *upRun, task string, params map[string]any) string {
	t.Helper()
	var ps []any
	for k, v := range params {
		ps = append(ps, map[string]any{"name": k, "value": v})
	}
	tr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tekton.dev/v1", "kind": "TaskRun",
		"metadata": map[string]any{"namespace": pipelinesNS, "generateName": task + "-"},
		"spec":     map[string]any{"taskRef": map[string]any{"name": task}, "params": ps},
	}}
	// The disk-virt tasks need no API access and have no account of their
	// own: the namespace's default runs them.
	if !strings.HasPrefix(task, "disk-virt-") {
		tr.Object["spec"].(map[string]any)["serviceAccountName"] = task + "-task"
	}
	require.NoError(t, n.c.Create(context.Background(), tr))
	t.Cleanup(func() { _ = n.c.Delete(context.Background(), tr) })
	return tr.GetName()
}

// TestDiskVirtSysprepRunsOnAClaim runs disk-virt-sysprep (libguestfs in
// the disk-virt image) on a clone of the test guest's disk.
func TestDiskVirtSysprepRunsOnAClaim(t *testing.T) {
	n := onNode(t)
	ctx := context.Background()
	dv := &cdiv1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: pipelinesNS, Name: "sysprep-disk",
			Annotations: map[string]string{"cdi.kubevirt.io/storage.bind.immediate.requested": "true"}},
		Spec: cdiv1.DataVolumeSpec{
			SourceRef: &cdiv1.DataVolumeSourceRef{Kind: "DataSource", Name: "virtflow-test-guest", Namespace: ptr.To("virtflow-os-images")},
			Storage: &cdiv1.StorageSpec{Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("64Mi")}}},
		},
	}
	require.NoError(t, n.c.Create(ctx, dv))
	t.Cleanup(func() { _ = n.c.Delete(ctx, dv) })
	require.Eventually(t, func() bool {
		got := &cdiv1.DataVolume{}
		return n.c.Get(ctx, crclient.ObjectKeyFromObject(dv), got) == nil && got.Status.Phase == cdiv1.Succeeded
	}, 5*time.Minute, time.Second, "the clone never finished")

	run := taskRun(t, n, "disk-virt-sysprep", map[string]any{"pvc": dv.Name, "virtCommands": "write /sysprepped.txt:yes\n"})
	done := succeeded(t, n, taskRunGVK, pipelinesNS, run, 10*time.Minute)
	pod, _, _ := unstructured.NestedString(done.Object, "status", "podName")
	out, err := n.kubectl("logs", "-n", pipelinesNS, pod, "-c", "step-run-virt-sysprep").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "Performing \"", "virt-sysprep ran its operations")
}
