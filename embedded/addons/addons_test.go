package addons

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// The manifest runs the image the node imports, and no placeholder
// survives.
func TestEachAddonsManifestRunsItsImageWithEveryPlaceholderFilled(t *testing.T) {
	for _, a := range []Addon{ClusterDNS("/bin", "10.0.0.10", "10.244.0.1"), Registry("/bin", "/data/registry")} {
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
