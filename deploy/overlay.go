package deploy

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Overlays are the kustomize overlays: what `virtflow up` applies on its
// node and what a cluster user applies.
const (
	EmbeddedOverlay = "embedded"
	ClusterOverlay  = "cluster"
)

// Placeholders of the embedded overlay that `virtflow up` fills in, as a
// user would with `kustomize edit`.
const (
	ComponentsTag = "COMPONENTS_TAG"
	// CLIDownloadsTag tags virtflow.local/virtctl-downloads, the components
	// image with the virtctl builds cli-download serves.
	CLIDownloadsTag = "CLI_DOWNLOADS_TAG"
	TemporalAddress = "TEMPORAL_ADDRESS"
	// TemporalUI is the Temporal Web UI's URL for the console's links.
	TemporalUI          = "TEMPORAL_UI"
	KubeletRoot         = "KUBELET_ROOT"
	NodeDir             = "NODE_DIR"
	HostRoot            = "HOST_ROOT"
	CSIProvisionerImage = "CSI_PROVISIONER_IMAGE"
	// DomainType is a YAML scalar: "" (detect on each node), kvm or qemu.
	DomainType = "DOMAIN_TYPE"
	// TektonTasksImage and TektonTasksDiskVirtImage are the Tekton tasks'
	// step images ssp-operator names in the Tasks it installs.
	TektonTasksImage         = "TEKTON_TASKS_IMAGE"
	TektonTasksDiskVirtImage = "TEKTON_TASKS_DISK_VIRT_IMAGE"
	// CNIBinDir and CNIConfDir are the node's writable CNI plugin and
	// configuration directories; MultusImage holds Multus's thin plugin
	// and the Linux bridge plugins.
	CNIBinDir   = "CNI_BIN_DIR"
	CNIConfDir  = "CNI_CONF_DIR"
	MultusImage = "MULTUS_IMAGE"
)

// Overlay builds an overlay with kustomize, from the manifests this binary
// was built with, after replacing each key of set by its value in the
// overlay's kustomization.yaml. It returns the multi-document YAML.
func Overlay(name string, set map[string]string) ([]byte, error) {
	mem := filesys.MakeFsInMemory()
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		if p == path.Join(name, kustomizationFile) {
			text := string(data)
			for k, v := range set {
				text = strings.ReplaceAll(text, k, v)
			}
			data = []byte(text)
		}
		return mem.WriteFile(path.Join("/deploy", p), data)
	})
	if err != nil {
		return nil, fmt.Errorf("reading the embedded manifests: %w", err)
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, path.Join("/deploy", name))
	if err != nil {
		return nil, fmt.Errorf("building the %s overlay: %w", name, err)
	}
	out, err := res.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("writing the %s overlay: %w", name, err)
	}
	return out, nil
}
