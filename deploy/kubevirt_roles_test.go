package deploy

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// kubevirtRoles are the ClusterRoles of kubevirt-roles.yaml, by name.
func kubevirtRoles(t *testing.T) map[string]rbacv1.ClusterRole {
	t.Helper()
	files, err := RBAC()
	require.NoError(t, err)
	out := map[string]rbacv1.ClusterRole{}
	for _, doc := range strings.Split(string(files["kubevirt-roles.yaml"]), "\n---\n") {
		var r rbacv1.ClusterRole
		require.NoError(t, yaml.Unmarshal([]byte(doc), &r))
		out[r.Name] = r
	}
	return out
}

// grants says whether one of rules allows verb on group/resource; the
// roles name no wildcards, so plain membership is the whole test.
func grants(rules []rbacv1.PolicyRule, verb, group, resource string) bool {
	for _, r := range rules {
		if slices.Contains(r.Verbs, verb) && slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) {
			return true
		}
	}
	return false
}

// As upstream's since 1.5: view, edit and admin watch migrations and
// migration policies; only kubevirt.io:migrate, aggregated nowhere,
// requests or cancels a migration.
func TestOnlyTheMigrateRoleMovesVMs(t *testing.T) {
	roles := kubevirtRoles(t)
	for _, name := range []string{"kubevirt.io:view", "kubevirt.io:edit", "kubevirt.io:admin"} {
		rules := roles[name].Rules
		require.NotEmpty(t, rules, name)
		require.True(t, grants(rules, "watch", "kubevirt.io", "virtualmachineinstancemigrations"), name)
		require.True(t, grants(rules, "list", "migrations.kubevirt.io", "migrationpolicies"), name)
		for _, verb := range []string{"create", "delete", "update", "patch", "deletecollection"} {
			require.False(t, grants(rules, verb, "kubevirt.io", "virtualmachineinstancemigrations"), "%s may %s migrations", name, verb)
		}
		require.False(t, grants(rules, "update", "subresources.kubevirt.io", "virtualmachines/migrate"), name)
	}
	migrate := roles["kubevirt.io:migrate"]
	require.True(t, grants(migrate.Rules, "update", "subresources.kubevirt.io", "virtualmachines/migrate"))
	require.True(t, grants(migrate.Rules, "create", "kubevirt.io", "virtualmachineinstancemigrations"))
	require.True(t, grants(migrate.Rules, "delete", "kubevirt.io", "virtualmachineinstancemigrations"))
	for label := range migrate.Labels {
		require.NotContains(t, label, "aggregate-to", "kubevirt.io:migrate is granted on purpose, never aggregated")
	}
}

// Edit and admin may cancel an evacuation, as upstream grants: the API
// server authorizes the first segment after the name ("evacuate"), so
// both that and upstream's literal "evacuate/cancel" are granted; view
// may not.
func TestEditAndAdminMayCancelAnEvacuation(t *testing.T) {
	roles := kubevirtRoles(t)
	for _, resource := range []string{"virtualmachines", "virtualmachineinstances"} {
		for _, sub := range []string{"/evacuate", "/evacuate/cancel"} {
			for _, name := range []string{"kubevirt.io:edit", "kubevirt.io:admin"} {
				require.True(t, grants(roles[name].Rules, "update", "subresources.kubevirt.io", resource+sub), "%s: %s", name, resource+sub)
			}
			require.False(t, grants(roles["kubevirt.io:view"].Rules, "update", "subresources.kubevirt.io", resource+sub), resource+sub)
		}
	}
}
