package tasks

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestEveryTaskButDiskVirtHasItsRoleAccountAndBinding(t *testing.T) {
	objs := render(t)
	for _, task := range tasksWithRBAC {
		name := task + "-task"
		role := find(objs, "ClusterRole", name)
		require.NotNil(t, role, name)
		assert.Empty(t, role.GetNamespace(), "a ClusterRole is cluster-scoped")
		sa := find(objs, "ServiceAccount", name)
		require.NotNil(t, sa, name)
		assert.Equal(t, "tasks-ns", sa.GetNamespace())

		var rb rbacv1.RoleBinding
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(find(objs, "RoleBinding", name).Object, &rb))
		assert.Equal(t, "tasks-ns", rb.Namespace)
		assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}, rb.RoleRef)
		assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: "tasks-ns"}}, rb.Subjects)
	}
	for _, task := range []string{"disk-virt-customize", "disk-virt-sysprep"} {
		assert.Nil(t, find(objs, "ClusterRole", task+"-task"))
	}
}

// allows tells whether role grants verb on group/resource.
func allows(t *testing.T, objs []*unstructured.Unstructured, role, group, resource, verb string) bool {
	t.Helper()
	var r rbacv1.ClusterRole
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(find(objs, "ClusterRole", role).Object, &r))
	for _, rule := range r.Rules {
		if slices.Contains(rule.APIGroups, group) && slices.Contains(rule.Resources, resource) &&
			(slices.Contains(rule.Verbs, verb) || slices.Contains(rule.Verbs, "*")) {
			return true
		}
	}
	return false
}

func TestRolesCoverWhatTheStepsDo(t *testing.T) {
	objs := render(t)
	type access struct{ role, group, resource, verb string }
	for _, a := range []access{
		{"create-vm-from-template-task", "template.openshift.io", "templates", "get"},
		{"create-vm-from-template-task", "kubevirt.io", "virtualmachines", "create"},
		{"create-vm-from-template-task", "subresources.kubevirt.io", "virtualmachines/start", "update"},
		{"create-vm-from-manifest-task", "kubevirt.io", "virtualmachines", "create"},
		{"create-vm-from-manifest-task", "", "pods", "get"},
		{"copy-template-task", "template.openshift.io", "templates", "get"},
		{"copy-template-task", "template.openshift.io", "templates", "create"},
		{"copy-template-task", "template.openshift.io", "templates", "update"},
		{"copy-template-task", "template.openshift.io", "templates", "delete"},
		{"modify-vm-template-task", "template.openshift.io", "templates", "get"},
		{"modify-vm-template-task", "template.openshift.io", "templates", "update"},
		{"modify-vm-template-task", "template.openshift.io", "templates", "delete"},
		{"modify-data-object-task", "cdi.kubevirt.io", "datavolumes", "create"},
		{"modify-data-object-task", "cdi.kubevirt.io", "datasources", "delete"},
		{"modify-data-object-task", "", "persistentvolumeclaims", "delete"},
		{"modify-data-object-task", "", "pods", "get"},
		{"wait-for-vmi-status-task", "kubevirt.io", "virtualmachineinstances", "watch"},
		{"generate-ssh-keys-task", "", "secrets", "create"},
		{"generate-ssh-keys-task", "", "secrets", "get"},
	} {
		assert.True(t, allows(t, objs, a.role, a.group, a.resource, a.verb), "%+v", a)
	}
	for _, role := range []string{"execute-in-vm-task", "cleanup-vm-task"} {
		for _, a := range []access{
			{role, "kubevirt.io", "virtualmachines", "get"},
			{role, "kubevirt.io", "virtualmachines", "update"},
			{role, "kubevirt.io", "virtualmachineinstances", "get"},
			{role, "subresources.kubevirt.io", "virtualmachines/start", "update"},
			{role, "subresources.kubevirt.io", "virtualmachines/stop", "update"},
			{role, "subresources.kubevirt.io", "virtualmachineinstances/console", "get"},
			{role, "", "secrets", "get"},
		} {
			assert.True(t, allows(t, objs, a.role, a.group, a.resource, a.verb), "%+v", a)
		}
	}
	assert.True(t, allows(t, objs, "cleanup-vm-task", "kubevirt.io", "virtualmachines", "delete"))
	assert.False(t, allows(t, objs, "execute-in-vm-task", "kubevirt.io", "virtualmachines", "delete"),
		"only cleanup-vm deletes VMs")
}

func TestPipelinesAreInstalledWithTheTasks(t *testing.T) {
	objs := render(t)
	durable := 0
	for _, name := range []string{"server-deployer", "golden-image", "golden-image-durable"} {
		p := find(objs, "Pipeline", name)
		require.NotNil(t, p, name)
		assert.Equal(t, "tasks-ns", p.GetNamespace())
		tasks, _, err := unstructured.NestedSlice(p.Object, "spec", "tasks")
		require.NoError(t, err)
		for _, pt := range tasks {
			ref, _, _ := unstructured.NestedString(pt.(map[string]any), "taskRef", "name")
			assert.Contains(t, TaskNames(), ref, "pipeline %s", name)
			if kind, _, _ := unstructured.NestedString(pt.(map[string]any), "taskRef", "kind"); kind == "DurableTask" {
				durable++
			}
		}
	}
	assert.Equal(t, 4, durable, "golden-image-durable runs its steps but virt-customize as durable tasks (cleanup-vm, in finally, too)")
}

func TestManifestsComeInAStableOrder(t *testing.T) {
	first, second := render(t), render(t)
	require.Equal(t, len(first), len(second))
	var kinds []string
	for i := range first {
		assert.Equal(t, first[i].GetKind()+"/"+first[i].GetName(), second[i].GetKind()+"/"+second[i].GetName())
		if len(kinds) == 0 || kinds[len(kinds)-1] != first[i].GetKind() {
			kinds = append(kinds, first[i].GetKind())
		}
	}
	assert.Equal(t, []string{"ClusterRole", "ServiceAccount", "RoleBinding", "Task", "Pipeline"}, kinds)
	assert.Len(t, first, 3*len(tasksWithRBAC)+len(upstreamTasks)+3, "three pipelines")
}
