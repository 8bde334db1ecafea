package platform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/kubenode"
	"github.com/virtflow/virtflow/wire/cniimage"
)

// MultusRepository is where the image of the network add-ons' CNI plugins
// (Multus, built from its module, and Debian's bridge and tuning) is
// imported, tagged with Multus's version.
const MultusRepository = "virtflow.local/multus"

// ensureMultus adds Multus's build, which only a start imports.
func (t *nodeTools) ensureMultus(ctx context.Context, o Options, say func(string)) error {
	var err error
	t.multus, t.multusVersion, err = binaries.EnsureMultus(ctx, filepath.Join(filepath.Dir(o.ToolsDir), "multus"), o.CacheDir, say)
	return err
}

// multusImage is the launcher's base (a shell and coreutils, which the
// DaemonSets copy with) with Multus's thin plugin and the node's own
// bridge and tuning plugins, where cluster-network-addons-operator's
// DaemonSets take them from.
func multusImage(t nodeTools, base []string) (images.Image, error) {
	entries := []images.Entry{{Path: cniimage.MultusBinary, Source: filepath.Join(t.multus, "multus"), Mode: 0o755}}
	for _, p := range cniimage.LinuxBridgePlugins {
		src := filepath.Join(kubenode.DefaultCNIBinDir, p)
		if _, err := os.Stat(src); err != nil {
			return images.Image{}, fmt.Errorf("the Linux bridge plugins come from Debian's containernetworking-plugins: %w", err)
		}
		entries = append(entries, images.Entry{Path: filepath.Join(cniimage.PluginDir, p), Source: src, Mode: 0o755})
	}
	return images.Image{Ref: MultusRepository + ":" + t.multusVersion, BaseTars: base, Layers: [][]images.Entry{entries}}, nil
}
