package addons

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/virtflow/virtflow/embedded/controlplane"
)

// The manifest runs the image the node imports, and no placeholder
// survives.
func TestEachAddonsManifestRunsItsImageWithEveryPlaceholderFilled(t *testing.T) {
	registry, err := Registry("/bin", "/data/registry", "node-a", testRegistryCredentials(t))
	require.NoError(t, err)
	for _, a := range []Addon{ClusterDNS("/bin", "10.0.0.10", "10.244.0.1"), registry} {
		t.Run(a.Name, func(t *testing.T) {
			manifest, err := a.manifest()
			require.NoError(t, err)
			for placeholder, value := range a.values {
				require.Contains(t, string(manifest), placeholder)
				manifest = bytes.ReplaceAll(manifest, []byte(placeholder), []byte(value))
			}
			dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifest), 4096)
			var found bool
			for {
				var d appsv1.Deployment
				if dec.Decode(&d) != nil {
					break
				}
				if d.Kind == "Deployment" {
					found = true
					require.Equal(t, a.Name, d.Name)
					require.Equal(t, "kube-system", d.Namespace)
					require.Equal(t, a.Image.Ref, d.Spec.Template.Spec.Containers[0].Image)
				}
			}
			require.True(t, found, "a Deployment named after the add-on")
		})
	}
}

// testRegistryCredentials are files standing for the registry's PEM files.
func testRegistryCredentials(t *testing.T) controlplane.RegistryCredentials {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("-----BEGIN "+name+"-----\n"), 0o600))
		return p
	}
	return controlplane.RegistryCredentials{CAFile: write("ca"), CertFile: write("cert"), KeyFile: write("key")}
}

// The registry's Secret carries its TLS files, and the push endpoint
// requires the client certificates of that CA.
func TestTheRegistryTakesPushesOnlyOverMutualTLS(t *testing.T) {
	creds := testRegistryCredentials(t)
	a, err := Registry("/bin", "/data/registry", "node-a", creds)
	require.NoError(t, err)
	for placeholder, file := range map[string]string{"REGISTRY_TLS_CRT": creds.CertFile, "REGISTRY_CA_CRT": creds.CAFile} {
		pem, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Equal(t, base64.StdEncoding.EncodeToString(pem), a.values[placeholder])
	}
	manifest, err := a.manifest()
	require.NoError(t, err)
	require.Contains(t, string(manifest), "clientcas:\n        - /etc/registry-tls/ca.crt")
	require.Contains(t, string(manifest), "readonly:\n          enabled: true")
}
