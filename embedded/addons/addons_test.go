package addons

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/embedded/controlplane"
)

// workload is what a Deployment and a DaemonSet share.
type workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Template corev1.PodTemplateSpec `json:"template"`
	} `json:"spec"`
}

// The manifest runs the image the node imports in a workload of the kind
// the add-on waits for, and no placeholder survives.
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
			kind := "Deployment"
			if a.daemonSet {
				kind = "DaemonSet"
			}
			var found bool
			for {
				var d workload
				if dec.Decode(&d) != nil {
					break
				}
				if d.Kind == kind {
					found = true
					require.Equal(t, a.Name, d.Name)
					require.Equal(t, "kube-system", d.Namespace)
					require.Equal(t, a.Image.Ref, d.Spec.Template.Spec.Containers[0].Image)
				}
			}
			require.True(t, found, "a %s named after the add-on", kind)
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

// Install removes the workload an earlier release made in its place (the
// registry's Deployment), and does not mind when there is none.
func TestRemoveFormerDeletesTheReplacedWorkloadOnce(t *testing.T) {
	former := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "registry"}}
	c := fake.NewClientBuilder().WithObjects(former.DeepCopy()).Build()
	a := Addon{Name: "registry", replaces: former}
	require.NoError(t, a.removeFormer(context.Background(), c))
	err := c.Get(context.Background(), client.ObjectKeyFromObject(former), &appsv1.Deployment{})
	require.True(t, apierrors.IsNotFound(err), "the former Deployment is gone: %v", err)
	require.NoError(t, a.removeFormer(context.Background(), c))
}
