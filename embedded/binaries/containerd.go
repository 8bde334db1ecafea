package binaries

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// ContainerdPackages maps the node runtime's binaries to their packages in
// the tools/containerd module.
var ContainerdPackages = map[string]string{
	"containerd":              "github.com/containerd/containerd/v2/cmd/containerd",
	"containerd-shim-runc-v2": "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2",
	"ctr":                     "github.com/containerd/containerd/v2/cmd/ctr",
}

// EnsureContainerd returns a directory holding containerd, its runc shim
// and ctr, built once from toolsDir (the tools/containerd module) into a
// cache directory named after the pinned containerd version.
func EnsureContainerd(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, error) {
	version, err := pinnedVersion(filepath.Join(toolsDir, "go.mod"), "github.com/containerd/containerd/v2")
	if err != nil {
		return "", err
	}
	binDir := filepath.Join(cacheRoot, "containerd-"+version, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", binDir, err)
	}
	pkgPrefix := "github.com/containerd/containerd/v2/version."
	ldflags := "-s -w -X " + pkgPrefix + "Version=" + version + " -X " + pkgPrefix + "Revision=" + version
	for _, name := range []string{"containerd", "containerd-shim-runc-v2", "ctr"} {
		out := filepath.Join(binDir, name)
		if st, err := os.Stat(out); err == nil && st.Mode()&0o111 != 0 {
			continue
		}
		progress(fmt.Sprintf("building %s (first run only, cached in %s)", name, binDir))
		// No btrfs: its snapshotter needs cgo headers, and the node uses
		// overlayfs.
		if err := build(ctx, toolsDir, out, ContainerdPackages[name], ldflags, "no_btrfs"); err != nil {
			return "", err
		}
	}
	return binDir, nil
}
