package controlplane

import (
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// The admission configuration enforces baseline on users' namespaces and
// exempts only the platform's namespaces and the launcher's creator.
func TestPodSecurityConfigEnforcesBaseline(t *testing.T) {
	var cfg struct {
		Plugins []struct {
			Name          string `json:"name"`
			Configuration struct {
				Defaults   map[string]string   `json:"defaults"`
				Exemptions map[string][]string `json:"exemptions"`
			} `json:"configuration"`
		} `json:"plugins"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(podSecurityConfig()), &cfg))
	require.Len(t, cfg.Plugins, 1)
	p := cfg.Plugins[0]
	require.Equal(t, "PodSecurity", p.Name)
	require.Equal(t, "baseline", p.Configuration.Defaults["enforce"])
	require.Equal(t, []string{"kube-system", "kubevirt-hyperconverged"}, p.Configuration.Exemptions["namespaces"])
	require.Equal(t, []string{LauncherCreator, MigrationTargetCreator}, p.Configuration.Exemptions["usernames"])
}
