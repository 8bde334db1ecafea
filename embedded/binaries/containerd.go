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
	const module = "github.com/containerd/containerd/v2"
	pkgPrefix := module + "/version."
	ldflags := func(version string) string {
		return "-s -w -X " + pkgPrefix + "Version=" + version + " -X " + pkgPrefix + "Revision=" + version
	}
	// No btrfs: its snapshotter needs cgo headers, and the node uses
	// overlayfs.
	return ensureTool(ctx, tool{dir: toolsDir, module: module, cacheName: "containerd", packages: ContainerdPackages, ldflags: ldflags, tags: []string{"no_btrfs"}}, cacheRoot, progress)
}

// EnsureCoreDNS returns a directory holding coredns, built once from
// toolsDir (the tools/coredns module).
func EnsureCoreDNS(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, error) {
	const module = "github.com/coredns/coredns"
	ldflags := func(string) string { return "-s -w" }
	return ensureTool(ctx, tool{dir: toolsDir, module: module, cacheName: "coredns", packages: map[string]string{"coredns": module}, ldflags: ldflags}, cacheRoot, progress)
}

// EnsureRegistry returns a directory holding registry, distribution's OCI
// registry built once from toolsDir (the tools/registry module, whose
// command links only the storage drivers the node uses).
func EnsureRegistry(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, error) {
	const module = "github.com/distribution/distribution/v3"
	ldflags := func(version string) string { return "-s -w -X " + module + "/version.version=" + version }
	pkgs := map[string]string{"registry": "github.com/virtflow/virtflow/tools/registry/cmd/registry"}
	return ensureTool(ctx, tool{dir: toolsDir, module: module, cacheName: "registry", packages: pkgs, ldflags: ldflags}, cacheRoot, progress)
}

// EnsureCSIProvisioner returns a directory holding csi-provisioner,
// kubernetes-csi's external-provisioner built once from toolsDir (the
// tools/csi module), and its version.
func EnsureCSIProvisioner(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, string, error) {
	const module = "github.com/kubernetes-csi/external-provisioner/v5"
	version, err := pinnedVersion(filepath.Join(toolsDir, "go.mod"), module)
	if err != nil {
		return "", "", err
	}
	ldflags := func(version string) string { return "-s -w -X main.version=" + version }
	pkgs := map[string]string{"csi-provisioner": module + "/cmd/csi-provisioner"}
	dir, err := ensureTool(ctx, tool{dir: toolsDir, module: module, cacheName: "csi-provisioner", packages: pkgs, ldflags: ldflags}, cacheRoot, progress)
	return dir, version, err
}

// tool is a module pinned by a tools module whose commands are built into
// <cacheRoot>/<cacheName>-<version>/bin.
type tool struct {
	dir, module, cacheName string
	packages               map[string]string
	ldflags                func(version string) string
	tags                   []string
}

func ensureTool(ctx context.Context, t tool, cacheRoot string, progress func(string)) (string, error) {
	version, err := pinnedVersion(filepath.Join(t.dir, "go.mod"), t.module)
	if err != nil {
		return "", err
	}
	binDir := filepath.Join(cacheRoot, t.cacheName+"-"+version, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", binDir, err)
	}
	for name, pkg := range t.packages {
		out := filepath.Join(binDir, name)
		if st, err := os.Stat(out); err == nil && st.Mode()&0o111 != 0 {
			continue
		}
		progress(fmt.Sprintf("building %s (first run only, cached in %s)", name, binDir))
		if err := build(ctx, t.dir, out, pkg, t.ldflags(version), t.tags...); err != nil {
			return "", err
		}
	}
	return binDir, nil
}
