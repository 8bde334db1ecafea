package binaries

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// TektonModule is Tekton Pipelines' module; the tools/tekton module pins it.
const TektonModule = "github.com/tektoncd/pipeline"

// TektonCommands are the Tekton Pipelines programs the node runs, each
// named after its directory under cmd/, which also names its image and its
// /ko-app path: the controller, webhook and events controller run as
// Deployments; the others are the images the controller puts into every
// TaskRun's pod. The remote resolvers are left out: they fetch tasks from
// git, hubs and registries, none of which the node reaches.
var TektonCommands = []string{"controller", "webhook", "events", "entrypoint", "nop", "workingdirinit", "sidecarlogresults"}

// TektonPackages maps each of TektonCommands to its package.
func TektonPackages() map[string]string {
	pkgs := make(map[string]string, len(TektonCommands))
	for _, name := range TektonCommands {
		pkgs[name] = TektonModule + "/cmd/" + name
	}
	return pkgs
}

// EnsureTekton returns a directory holding TektonCommands, built once from
// toolsDir (the tools/tekton module) into a cache directory named after the
// pinned Tekton version, and that version.
func EnsureTekton(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, string, error) {
	version, err := pinnedVersion(filepath.Join(toolsDir, "go.mod"), TektonModule)
	if err != nil {
		return "", "", err
	}
	// Asked for only when something is built, so a warm cache never runs
	// go.
	revision := sync.OnceValue(func() string { return tektonRevision(ctx, version) })
	ldflags := func(string) string { return "-s -w -X knative.dev/pkg/changeset.rev=" + revision() }
	t := tool{dir: toolsDir, module: TektonModule, cacheName: "tekton", packages: TektonPackages(), ldflags: ldflags}
	dir, err := ensureTool(ctx, t, cacheRoot, progress)
	return dir, version, err
}

// TektonSource returns the directory of Tekton Pipelines' module source at
// version in the Go module cache (downloading it if it is not there yet),
// whose config/ holds the release's manifests.
func TektonSource(ctx context.Context, version string) (string, error) {
	m, err := downloadModule(ctx, TektonModule, version)
	if err != nil {
		return "", err
	}
	if m.Dir == "" {
		return "", fmt.Errorf("go mod download gave no directory for %s@%s", TektonModule, version)
	}
	return m.Dir, nil
}

// tektonRevision is what Tekton reports as its release on every TaskRun
// and pod it creates (knative's changeset): the release's images, built
// from a checkout of the tag, report the tag's short commit. Without it a
// module build reports "unknown"; when the commit cannot be learnt the
// version says the same thing.
func tektonRevision(ctx context.Context, version string) string {
	m, err := downloadModule(ctx, TektonModule, version)
	if err != nil {
		return version
	}
	return revisionFromInfo(m.Info, version)
}

// revisionFromInfo reads the commit a module version came from out of the
// module cache's .info file, which records it when the proxy told.
func revisionFromInfo(infoFile, version string) string {
	data, err := os.ReadFile(infoFile)
	if err != nil {
		return version
	}
	var info struct{ Origin struct{ Hash string } }
	if json.Unmarshal(data, &info) != nil || len(info.Origin.Hash) < 7 {
		return version
	}
	return info.Origin.Hash[:7]
}

// moduleDownload is what `go mod download -json` reports of a module.
type moduleDownload struct{ Dir, Info, Error string }

// downloadModule makes sure module@version is in the Go module cache (a
// no-op, offline, once it is) and tells where.
func downloadModule(ctx context.Context, module, version string) (moduleDownload, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	out, err := cmd.Output()
	var m moduleDownload
	if jerr := json.Unmarshal(out, &m); jerr != nil && err == nil {
		err = jerr
	}
	if m.Error != "" {
		return m, fmt.Errorf("downloading %s@%s: %s", module, version, m.Error)
	}
	if err != nil {
		return m, fmt.Errorf("downloading %s@%s: %w", module, version, err)
	}
	return m, nil
}
