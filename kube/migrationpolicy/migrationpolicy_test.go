package migrationpolicy

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	migrationsv1alpha1 "kubevirt.io/api/migrations/v1alpha1"
)

func policy(name string, vmi, ns map[string]string) migrationsv1alpha1.MigrationPolicy {
	return migrationsv1alpha1.MigrationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: migrationsv1alpha1.MigrationPolicySpec{
		Selectors: &migrationsv1alpha1.Selectors{VirtualMachineInstanceSelector: vmi, NamespaceSelector: ns}}}
}

func TestTheMostSpecificPolicyWins(t *testing.T) {
	policies := []migrationsv1alpha1.MigrationPolicy{
		policy("b-ns", nil, map[string]string{"team": "a"}),
		policy("a-ns", nil, map[string]string{"team": "a"}),
		policy("vmi", map[string]string{"tier": "db"}, nil),
		policy("both", map[string]string{"tier": "db"}, map[string]string{"team": "a"}),
		policy("other", map[string]string{"tier": "web"}, nil),
		{ObjectMeta: metav1.ObjectMeta{Name: "no-selectors"}},
	}
	ns := map[string]string{"team": "a"}
	require.Equal(t, "both", Select(policies, map[string]string{"tier": "db"}, ns).Name, "two labels beat one")
	require.Equal(t, "vmi", Select(policies, map[string]string{"tier": "db"}, nil).Name)
	require.Equal(t, "a-ns", Select(policies, map[string]string{"tier": "cache"}, ns).Name, "a tie goes to the first name")
	require.Nil(t, Select(policies, map[string]string{"tier": "cache"}, nil))
	require.Nil(t, Select(policies[2:3], nil, nil), "a VMI without labels does not match a VMI selector")

	tie := []migrationsv1alpha1.MigrationPolicy{
		policy("ns-two", nil, map[string]string{"team": "a", "env": "prod"}),
		policy("vmi-two", map[string]string{"tier": "db", "zone": "1"}, nil),
	}
	require.Equal(t, "vmi-two", Select(tie, map[string]string{"tier": "db", "zone": "1"}, map[string]string{"team": "a", "env": "prod"}).Name,
		"on equal matches, more of the VMI's labels win")
}

func TestThePolicyOverlaysTheClusterConfiguration(t *testing.T) {
	yes, no, minutes := true, false, int64(300)
	bw := resource.MustParse("64Mi")
	cluster := kubevirtv1.MigrationConfiguration{AllowAutoConverge: &no, AllowPostCopy: &no, CompletionTimeoutPerGiB: &minutes}

	cfg, name := Effective(cluster, nil)
	require.Empty(t, name)
	require.False(t, *cfg.AllowWorkloadDisruption, "defaults to post-copy's setting")

	p := policy("fast", map[string]string{"tier": "db"}, nil)
	cfg, name = Effective(cluster, &p)
	require.Empty(t, name, "a policy that changes nothing is not named")

	p.Spec.AllowPostCopy, p.Spec.BandwidthPerMigration = &yes, &bw
	cfg, name = Effective(cluster, &p)
	require.Equal(t, "fast", name)
	require.True(t, *cfg.AllowPostCopy)
	require.True(t, *cfg.AllowWorkloadDisruption, "post-copy allowed brings disruption with it unless the policy says")
	require.Equal(t, "64Mi", cfg.BandwidthPerMigration.String())
	require.Equal(t, int64(300), *cfg.CompletionTimeoutPerGiB, "what the policy leaves alone is the cluster's")
	require.False(t, *cluster.AllowPostCopy, "the cluster's configuration is not touched")
}
