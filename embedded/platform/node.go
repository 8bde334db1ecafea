package platform

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/node/handler"
)

// NodeName is the node agent `virtflow up` runs.
const NodeName = "virtflow-node-1"

// nobody runs the launchers' libvirtd and qemu.
const nobody = 65534

// ImageStore is where containerDisk and kernel-boot images are found:
// <data-dir>/images/<name>/<tag>/ (see README).
func ImageStore(dataDir string) string { return filepath.Join(dataDir, "images") }

func (p *Platform) nodeConfig() (handler.Config, error) {
	self, err := os.Executable()
	if err != nil {
		return handler.Config{}, fmt.Errorf("finding the virtflow binary for launchers: %w", err)
	}
	// Launchers run qemu unprivileged: the data directory must be
	// traversable by it (the files inside keep their own modes).
	if err := os.Chmod(p.opts.DataDir, 0o755); err != nil {
		return handler.Config{}, fmt.Errorf("opening data directory to launchers: %w", err)
	}
	dir := filepath.Join(p.opts.DataDir, "nodes", NodeName)
	for _, d := range []string{filepath.Dir(dir), dir, ImageStore(p.opts.DataDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return handler.Config{}, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	return handler.Config{
		NodeName: NodeName, NodeIP: "127.0.0.1", Dir: dir, ImageStore: ImageStore(p.opts.DataDir),
		UID: nobody, GID: nobody, DomainType: handler.DetectDomainType(),
		LauncherCommand: []string{self, "virt-launcher"},
	}, nil
}
