package rbacpolicy

import (
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func rule(groups, resources, verbs []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs, ResourceNames: names}
}

var (
	all  = []string{"*"}
	core = []string{""}
)

func TestWildcardVerbsOnTheGuardedKindsAreViolations(t *testing.T) {
	for _, r := range []rbacv1.PolicyRule{
		rule([]string{"rbac.authorization.k8s.io"}, []string{"clusterroles"}, all),
		rule([]string{"admissionregistration.k8s.io"}, []string{"validatingwebhookconfigurations"}, all),
		rule([]string{"apiregistration.k8s.io"}, all, all),
		rule(core, []string{"secrets"}, all),
		rule(core, all, all),
		rule(all, all, all),
		// Named objects do not make a wildcard verb on them acceptable.
		rule(core, []string{"secrets"}, all, "one"),
	} {
		require.NotEmpty(t, Violations([]rbacv1.PolicyRule{r}), "%+v", r)
	}
}

func TestEscalateBindAndImpersonateNeedNames(t *testing.T) {
	for _, r := range []rbacv1.PolicyRule{
		rule([]string{"rbac.authorization.k8s.io"}, []string{"clusterroles"}, []string{"escalate"}),
		rule([]string{"rbac.authorization.k8s.io"}, []string{"roles"}, []string{"bind"}),
		rule(core, []string{"users"}, []string{"impersonate"}),
		// A wildcard verb on service accounts impersonates them.
		rule(core, []string{"serviceaccounts"}, all),
		rule([]string{"authentication.k8s.io"}, []string{"userextras"}, all),
	} {
		require.NotEmpty(t, Violations([]rbacv1.PolicyRule{r}), "%+v", r)
	}
	require.Empty(t, Violations([]rbacv1.PolicyRule{
		rule([]string{"rbac.authorization.k8s.io"}, []string{"clusterroles"}, []string{"escalate", "bind"}, "task-role"),
	}))
}

func TestNarrowRulesKeepThePolicy(t *testing.T) {
	require.Empty(t, Violations([]rbacv1.PolicyRule{
		rule([]string{"kubevirt.io"}, all, all),
		rule([]string{"k8s.cni.cncf.io"}, all, all),
		rule(core, []string{"secrets"}, []string{"get", "create"}),
		rule(core, []string{"persistentvolumeclaims"}, all),
		rule([]string{"rbac.authorization.k8s.io"}, []string{"clusterroles"}, []string{"get", "create", "patch"}, "mine"),
		{NonResourceURLs: []string{"/metrics"}, Verbs: all},
	}))
}

func TestAllowsMatchesGroupResourceVerbAndName(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		rule(core, []string{"secrets"}, []string{"get", "patch"}, "certs"),
		rule([]string{"apps"}, []string{"deployments", "daemonsets"}, []string{"get"}),
		rule([]string{"kubevirt.io"}, all, all),
	}
	require.True(t, Allows(rules, "patch", "", "secrets", "certs"))
	require.False(t, Allows(rules, "patch", "", "secrets", "other"))
	require.False(t, Allows(rules, "list", "", "secrets", ""), "a named rule does not allow an unnamed request")
	require.True(t, Allows(rules, "get", "apps", "daemonsets", "anything"))
	require.False(t, Allows(rules, "delete", "apps", "daemonsets", "anything"))
	require.True(t, Allows(rules, "delete", "kubevirt.io", "virtualmachines", ""))
	require.False(t, Allows(rules, "get", "cdi.kubevirt.io", "datavolumes", ""))
}

func TestCheckNamesTheOffendingRole(t *testing.T) {
	bad := &rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{rule(core, []string{"secrets"}, all)}}
	bad.Name = "too-much"
	good := &rbacv1.Role{Rules: []rbacv1.PolicyRule{rule(core, []string{"secrets"}, []string{"get"})}}
	good.Name = "enough"
	got := Check([]client.Object{good, bad, &rbacv1.ClusterRoleBinding{}})
	require.Len(t, got, 1)
	require.Contains(t, got[0], "too-much")
}
