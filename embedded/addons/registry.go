package addons

import (
	"path/filepath"

	"github.com/virtflow/virtflow/deploy"
	"github.com/virtflow/virtflow/embedded/images"
)

// RegistryImage is the name the registry's own image is imported under
// (it cannot come from itself).
const RegistryImage = "virtflow.local/registry:3.1.2"

// Registry is distribution's registry from binDir on the node's network,
// keeping images in dir on the node.
func Registry(binDir, dir string) Addon {
	return Addon{
		Name:     "registry",
		Image:    images.Command(RegistryImage, filepath.Join(binDir, "registry"), "/bin/registry", ""),
		manifest: deploy.Registry,
		values:   map[string]string{"REGISTRY_DIR": dir},
	}
}
