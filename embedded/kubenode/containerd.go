package kubenode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/process"
)

// PauseImage is every pod's sandbox image, built from Config.PauseBinary.
const PauseImage = "virtflow.local/pause:1"

// criNamespace is the containerd namespace the CRI plugin keeps
// Kubernetes' images and containers in.
const criNamespace = "k8s.io"

func (n *Node) startContainerd(ctx context.Context) error {
	conf := n.path("containerd.toml")
	if err := writeFile(n.hostPath("containerd.toml"), []byte(n.containerdConfig())); err != nil {
		return err
	}
	if err := n.writeRegistryHosts(); err != nil {
		return err
	}
	// The shim is found on PATH: put the one built with this containerd
	// first.
	env := "PATH=" + n.cfg.ContainerdBinDir + ":" + os.Getenv("PATH")
	if err := n.run("containerd", filepath.Join(n.cfg.ContainerdBinDir, "containerd"), []string{"--config", conf}, env); err != nil {
		return err
	}
	return n.waitContainerd(ctx)
}

func (n *Node) waitContainerd(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		if err := n.Healthy(); err != nil {
			return err
		}
		if _, err := n.ctr(ctx, "version"); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("containerd did not answer on %s: %w; the end of %s:\n%s", n.ContainerdSocket(), ctx.Err(),
				n.hostPath("logs", "containerd.log"), process.Tail(n.hostPath("logs", "containerd.log"), 2000))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ctr runs the ctr client against this node's containerd, in the CRI's
// namespace.
func (n *Node) ctr(ctx context.Context, args ...string) (string, error) {
	full := append([]string{"--address", n.ContainerdSocket(), "--namespace", criNamespace}, args...)
	out, err := exec.CommandContext(ctx, filepath.Join(n.cfg.ContainerdBinDir, "ctr"), full...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ctr %v: %w: %s", args, err, out)
	}
	return string(out), nil
}

// importImages imports the pause image and the configured ones.
func (n *Node) importImages(ctx context.Context) error {
	pause := images.Command(PauseImage, n.cfg.PauseBinary, "/pause", "65535:65535")
	for _, img := range append([]images.Image{pause}, n.cfg.Images...) {
		if err := n.ImportImage(ctx, img); err != nil {
			return err
		}
	}
	return nil
}

// ImportImage builds img and imports it into containerd for the kubelet,
// as if pulled; an image the node already has, by the same ID, is left
// alone.
func (n *Node) ImportImage(ctx context.Context, img images.Image) error {
	built, err := img.Build()
	if err != nil {
		return err
	}
	id, err := built.ConfigName()
	if err != nil {
		return fmt.Errorf("identifying %s: %w", img.Ref, err)
	}
	if have, err := n.imageID(ctx, img.Ref); err == nil && have == id.String() {
		return nil
	}
	dir, err := os.MkdirTemp(n.statePath(), "image-")
	if err != nil {
		return fmt.Errorf("creating a directory for %s: %w", img.Ref, err)
	}
	defer os.RemoveAll(dir)
	archive := filepath.Join(dir, "image.tar")
	if err := images.WriteArchive(archive, img.Ref, built); err != nil {
		return err
	}
	if _, err := n.ctr(ctx, "images", "import", "--platform", "linux/amd64", archive); err != nil {
		return fmt.Errorf("importing %s: %w", img.Ref, err)
	}
	return nil
}
