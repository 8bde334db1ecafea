package binaries

import (
	"context"
	"path/filepath"
)

// EnsureMultus returns a directory holding multus, Multus CNI's thin
// plugin built once from toolsDir (the tools/multus module), and its
// version.
func EnsureMultus(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, string, error) {
	const module = "gopkg.in/k8snetworkplumbingwg/multus-cni.v4"
	version, err := pinnedVersion(filepath.Join(toolsDir, "go.mod"), module)
	if err != nil {
		return "", "", err
	}
	// `multus -v` names the release, as upstream's build stamps it.
	ldflags := func(version string) string {
		return "-s -w -X " + module + "/pkg/multus.version=" + version + " -X " + module + "/pkg/multus.gitTreeState=clean"
	}
	pkgs := map[string]string{"multus": module + "/cmd/multus"}
	dir, err := ensureTool(ctx, tool{dir: toolsDir, module: module, cacheName: "multus", packages: pkgs, ldflags: ldflags}, cacheRoot, progress)
	return dir, version, err
}
