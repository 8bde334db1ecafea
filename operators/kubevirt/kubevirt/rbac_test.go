package kubevirt

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/rbacpolicy"
	"github.com/virtflow/virtflow/kube/workloads"
)

func rendered(t *testing.T, component string) []client.Object {
	t.Helper()
	objs, err := install.Render(context.Background(), nil, owner(), component)
	require.NoError(t, err)
	return objs
}

func TestNoComponentRoleGrantsAForbiddenWildcard(t *testing.T) {
	require.Empty(t, rbacpolicy.Check(RBAC("kubevirt-hyperconverged")))
	for _, c := range Components {
		require.Empty(t, rbacpolicy.Check(rendered(t, c)), c)
	}
}

// podSpec is the pod template of a component's workload.
func podSpec(t *testing.T, obj client.Object) corev1.PodSpec {
	t.Helper()
	switch w := obj.(type) {
	case *appsv1.Deployment:
		return w.Spec.Template.Spec
	case *appsv1.DaemonSet:
		return w.Spec.Template.Spec
	}
	t.Fatalf("%T is not a workload", obj)
	return corev1.PodSpec{}
}

// clusterRules and roleRules are the rules of the ClusterRole or Role
// named name in objs.
func clusterRules(objs []client.Object, name string) []rbacv1.PolicyRule {
	for _, o := range objs {
		if r, ok := o.(*rbacv1.ClusterRole); ok && r.Name == name {
			return r.Rules
		}
	}
	return nil
}

func roleRules(objs []client.Object, name string) []rbacv1.PolicyRule {
	for _, o := range objs {
		if r, ok := o.(*rbacv1.Role); ok && r.Name == name {
			return r.Rules
		}
	}
	return nil
}

func TestEachComponentRunsAsItsOwnAccountBoundToItsOwnRoles(t *testing.T) {
	for _, c := range Components {
		objs := rendered(t, c)
		account := Accounts[c]
		require.Equal(t, account, podSpec(t, objs[0]).ServiceAccountName, c)
		require.NotEmpty(t, clusterRules(objs, account), c)
		for _, o := range objs {
			if b, ok := o.(*rbacv1.ClusterRoleBinding); ok {
				require.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "kubevirt-hyperconverged", Name: account}}, b.Subjects)
			}
		}
	}
}

func TestVirtAPIIsBoundAsAnAggregatedAPIServer(t *testing.T) {
	objs := rendered(t, "virt-api")
	refs := map[string]string{}
	for _, o := range objs {
		switch b := o.(type) {
		case *rbacv1.ClusterRoleBinding:
			refs[b.Name] = b.RoleRef.Name
		case *rbacv1.RoleBinding:
			refs[b.Namespace+"/"+b.Name] = b.RoleRef.Name
		}
	}
	require.Equal(t, workloads.AuthDelegator, refs["kubevirt-apiserver-auth-delegator"])
	require.Equal(t, workloads.AuthReader, refs["kube-system/kubevirt-apiserver-auth-reader"])
}

func TestNoComponentMayListSecretsOrWriteThemOutsideItsNamespace(t *testing.T) {
	for _, c := range Components {
		cluster := clusterRules(rendered(t, c), Accounts[c])
		for _, verb := range []string{"list", "watch", "create", "update", "patch", "delete"} {
			require.False(t, rbacpolicy.Allows(cluster, verb, "", "secrets", ""), "%s may %s secrets cluster-wide", c, verb)
		}
	}
	handler := roleRules(rendered(t, "virt-handler"), HandlerAccount)
	require.True(t, rbacpolicy.Allows(handler, "create", "", "secrets", ""), "virt-handler publishes its API token")
}

func TestTheNodeAgentReadsWhatItsDiskActivitiesCheck(t *testing.T) {
	cluster := clusterRules(rendered(t, "virt-handler"), HandlerAccount)
	require.True(t, rbacpolicy.Allows(cluster, "get", "", "persistentvolumes", "pv"))
	require.True(t, rbacpolicy.Allows(cluster, "get", "cdi.kubevirt.io", "datavolumes", "dv"))
	require.True(t, rbacpolicy.Allows(cluster, "create", "authorization.k8s.io", "subjectaccessreviews", ""))
	require.True(t, rbacpolicy.Allows(cluster, "patch", "", "persistentvolumeclaims", "claim"))
	require.False(t, rbacpolicy.Allows(cluster, "create", "", "pods", ""), "the agent runs the pods the kubelet starts")
}

func TestVirtAPICreatesMigrationsAndChecksThoseInFlight(t *testing.T) {
	cluster := clusterRules(rendered(t, "virt-api"), APIServerAccount)
	require.True(t, rbacpolicy.Allows(cluster, "create", "kubevirt.io", "virtualmachineinstancemigrations", ""))
	require.True(t, rbacpolicy.Allows(cluster, "list", "kubevirt.io", "virtualmachineinstancemigrations", ""))
	require.False(t, rbacpolicy.Allows(cluster, "delete", "kubevirt.io", "virtualmachineinstancemigrations", "m"), "cancelling is the user's delete")
}

// evacuate/cancel reads the VMI's node for the drain taint and removes
// the evacuation mark through the status subresource.
func TestVirtAPIMayCancelAnEvacuation(t *testing.T) {
	cluster := clusterRules(rendered(t, "virt-api"), APIServerAccount)
	require.True(t, rbacpolicy.Allows(cluster, "get", "", "nodes", "node-1"))
	require.True(t, rbacpolicy.Allows(cluster, "patch", "kubevirt.io", "virtualmachineinstances/status", "vm"))
	require.False(t, rbacpolicy.Allows(cluster, "patch", "", "nodes", "node-1"), "virt-api only reads nodes")
}
