package addons

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/deploy"
	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/images"
)

// RegistryImage is the name the registry's own image is imported under
// (it cannot come from itself).
const RegistryImage = "virtflow.local/registry:3.1.2"

// Registry is distribution's registry from binDir on node's network,
// keeping images in dir on that node: pulls for everyone, pushes only over
// TLS from holders of a certificate of the registry CA in creds.
func Registry(binDir, dir, node string, creds controlplane.RegistryCredentials) (Addon, error) {
	values := map[string]string{"REGISTRY_DIR": dir, "REGISTRY_NODE": node}
	for placeholder, file := range map[string]string{
		"REGISTRY_TLS_CRT": creds.CertFile, "REGISTRY_TLS_KEY": creds.KeyFile, "REGISTRY_CA_CRT": creds.CAFile,
	} {
		pem, err := os.ReadFile(file)
		if err != nil {
			return Addon{}, fmt.Errorf("reading the registry's TLS files: %w", err)
		}
		values[placeholder] = base64.StdEncoding.EncodeToString(pem)
	}
	return Addon{
		Name:      "registry",
		Image:     images.Command(RegistryImage, filepath.Join(binDir, "registry"), "/bin/registry", ""),
		manifest:  deploy.Registry,
		values:    values,
		daemonSet: true,
		// Releases before this one ran it as a Deployment, which `kubectl
		// drain` evicted; it stayed Pending while its node was cordoned, and
		// no node could pull a container disk.
		replaces: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "registry"}},
	}, nil
}
