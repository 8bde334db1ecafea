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
	if p.opts.TestGuestDir != "" {
		if err := importTestGuest(p.opts.TestGuestDir, ImageStore(p.opts.DataDir)); err != nil {
			return handler.Config{}, err
		}
	}
	return handler.Config{
		NodeName: NodeName, NodeIP: "127.0.0.1", Dir: dir, ImageStore: ImageStore(p.opts.DataDir),
		UID: nobody, GID: nobody, DomainType: handler.DetectDomainType(),
		LauncherCommand: launcherCommand(self),
	}, nil
}

// launcherCommand prefers the standalone virt-launcher binary beside this
// one (make up builds both): it links only the launcher, so each VM's
// launcher process is a fraction of the all-in-one binary's memory.
func launcherCommand(self string) []string {
	standalone := filepath.Join(filepath.Dir(self), "virt-launcher")
	if st, err := os.Stat(standalone); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return []string{standalone}
	}
	return []string{self, "virt-launcher"}
}

// TestGuestImage is the test guest's name in the image store.
const TestGuestImage = "virtflow/test-guest:latest"

// importTestGuest lays the test guest out as an image: boot/vmlinuz,
// boot/initramfs.img (kernel boot) and disk/disk.raw (containerDisk).
func importTestGuest(guestDir, store string) error {
	dst := filepath.Join(store, "virtflow", "test-guest", "latest")
	files := map[string]string{"vmlinuz": "boot/vmlinuz", "initramfs.img": "boot/initramfs.img", "disk.raw": "disk/disk.raw"}
	for src, rel := range files {
		to := filepath.Join(dst, rel)
		if _, err := os.Stat(to); err == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(guestDir, src))
		if err != nil {
			return fmt.Errorf("reading test guest: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(to), err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return fmt.Errorf("importing test guest: %w", err)
		}
	}
	return nil
}
