package cdi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/kube/rbacpolicy"
	"github.com/virtflow/virtflow/kube/workloads"
)

func rendered(t *testing.T, component string) []client.Object {
	t.Helper()
	objs, err := install.Render(context.Background(), nil, cr(), component)
	require.NoError(t, err)
	return objs
}

// clusterRules are the rules of the ClusterRole named name in objs.
func clusterRules(objs []client.Object, name string) []rbacv1.PolicyRule {
	for _, o := range objs {
		if r, ok := o.(*rbacv1.ClusterRole); ok && r.Name == name {
			return r.Rules
		}
	}
	return nil
}

func TestNoComponentRoleGrantsAForbiddenWildcard(t *testing.T) {
	require.Empty(t, rbacpolicy.Check(RBAC("cdi-ns")))
	for _, c := range Components {
		require.Empty(t, rbacpolicy.Check(rendered(t, c)), c)
	}
}

func TestEachComponentRunsAsItsOwnAccount(t *testing.T) {
	for _, c := range Components {
		objs := rendered(t, c)
		account := Accounts[c]
		require.Equal(t, account, objs[0].(*appsv1.Deployment).Spec.Template.Spec.ServiceAccountName, c)
		role := account
		if c == "cdi-deployment" {
			role = "cdi"
		}
		require.NotEmpty(t, clusterRules(objs, role), "%s's ClusterRole is %s, as upstream", c, role)
	}
}

func TestOnlyTheAPIServerIsBoundAsAnAggregatedAPIServer(t *testing.T) {
	for _, c := range Components {
		found := false
		for _, o := range rendered(t, c) {
			if b, ok := o.(*rbacv1.ClusterRoleBinding); ok && b.RoleRef.Name == workloads.AuthDelegator {
				found = true
			}
		}
		require.Equal(t, c == "cdi-apiserver", found, c)
	}
}

func TestTheUploadProxyOnlyReads(t *testing.T) {
	rules := clusterRules(rendered(t, "cdi-uploadproxy"), UploadProxyAccount)
	for _, r := range rules {
		require.Subset(t, workloads.Read, r.Verbs)
	}
	require.False(t, rbacpolicy.Allows(rules, "get", "", "secrets", ""), "it takes user uploads: no secrets")
	require.True(t, rbacpolicy.Allows(rules, "get", "cdi.kubevirt.io", "datavolumes", "dv"))
}

func TestTheControllerRunsNoPodsOfItsOwnBeyondBinders(t *testing.T) {
	rules := clusterRules(rendered(t, "cdi-deployment"), controllerRole)
	require.True(t, rbacpolicy.Allows(rules, "create", "", "pods", ""), "binder pods")
	require.False(t, rbacpolicy.Allows(rules, "get", "", "secrets", "any"))
	require.True(t, rbacpolicy.Allows(rules, "deletecollection", "cdi.kubevirt.io", "datavolumes", ""), "a removed cron's imports")
}
