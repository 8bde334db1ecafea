// Package binaries builds the pinned upstream Kubernetes binaries (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, the node's
// kubelet and kube-proxy, and kubectl for people) from the tools module
// once, into a cache directory keyed by their versions, and reuses them on
// every later start.
package binaries

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Packages maps each binary to the Go package it is built from.
var Packages = map[string]string{
	"etcd":                    "go.etcd.io/etcd/server/v3",
	"kube-apiserver":          "k8s.io/kubernetes/cmd/kube-apiserver",
	"kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
	"kube-scheduler":          "k8s.io/kubernetes/cmd/kube-scheduler",
	"kubelet":                 "k8s.io/kubernetes/cmd/kubelet",
	"kube-proxy":              "k8s.io/kubernetes/cmd/kube-proxy",
	// kubectl is for people (the README's walk-through), not the platform.
	"kubectl": "k8s.io/kubernetes/cmd/kubectl",
}

// Names are the binaries, in build order.
var Names = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy", "kubectl"}

// recipe changes when how the binaries are built changes, so a cache built
// the old way is not reused (stamped: version information linked in).
const recipe = "stamped"

// DefaultCacheRoot is where builds are kept across checkouts:
// $VIRTFLOW_CACHE_DIR, else ~/.cache/virtflow.
func DefaultCacheRoot() string {
	if d := os.Getenv("VIRTFLOW_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "virtflow")
	}
	return filepath.Join(os.TempDir(), "virtflow-cache")
}

// Ensure returns a directory holding all the binaries, building the missing
// ones from toolsDir (the tools/k8s module) first. progress receives one line
// per step so a first, minutes-long build is not silent.
func Ensure(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, error) {
	versions, err := pinned(filepath.Join(toolsDir, "go.mod"))
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("k8s-%s-etcd-%s-%s", versions.kubernetes, versions.etcd, recipe)
	binDir := filepath.Join(cacheRoot, key, "bin")
	missing := missingBinaries(binDir)
	if len(missing) == 0 {
		return binDir, nil
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", binDir, err)
	}
	for _, name := range missing {
		progress(fmt.Sprintf("building %s (first run only, cached in %s)", name, binDir))
		if err := build(ctx, toolsDir, filepath.Join(binDir, name), Packages[name], "-s -w "+stamp(versions.kubernetes)); err != nil {
			return "", err
		}
	}
	return binDir, nil
}

func missingBinaries(binDir string) []string {
	var missing []string
	for _, name := range Names {
		if st, err := os.Stat(filepath.Join(binDir, name)); err != nil || st.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}

// build compiles pkg from the tools module in toolsDir (statically, with
// the given linker flags and build tags) into out. It writes to a
// temporary name and renames, so an interrupted build never leaves a
// truncated binary that a later start would trust.
func build(ctx context.Context, toolsDir, out, pkg, ldflags string, tags ...string) error {
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".partial")
	args := []string{"build", "-trimpath", "-ldflags=" + ldflags, "-o", tmp}
	if len(tags) > 0 {
		args = append(args, "-tags="+strings.Join(tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = toolsDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s in %s: %w\n%s", pkg, toolsDir, err, output)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("installing %s: %w", out, err)
	}
	return nil
}

// stamp links the Kubernetes version into a binary, as Kubernetes' own
// build does: a module build otherwise reports v0.0.0-master+$Format:%H$,
// which kubectl cannot parse and some controllers refuse to start on.
func stamp(version string) string {
	major, minor, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	pkg := "k8s.io/component-base/version."
	return strings.Join([]string{
		"-X " + pkg + "gitVersion=" + version, "-X " + pkg + "gitMajor=" + major, "-X " + pkg + "gitMinor=" + minor,
		"-X " + pkg + "gitTreeState=clean", "-X " + pkg + "buildDate=1970-01-01T00:00:00Z",
	}, " ")
}

type versions struct{ kubernetes, etcd string }

// pinned reads the Kubernetes and etcd versions the tools module pins;
// they name the cache directory, so bumping either triggers a rebuild.
func pinned(goMod string) (versions, error) {
	k8s, err := pinnedVersion(goMod, "k8s.io/kubernetes")
	if err != nil {
		return versions{}, err
	}
	etcd, err := pinnedVersion(goMod, "go.etcd.io/etcd/server/v3")
	if err != nil {
		return versions{}, err
	}
	return versions{kubernetes: k8s, etcd: etcd}, nil
}

// pinnedVersion reads the version a go.mod requires of module.
func pinnedVersion(goMod, module string) (string, error) {
	f, err := os.Open(goMod)
	if err != nil {
		return "", fmt.Errorf("reading tools module: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 && fields[0] == module {
			return fields[1], nil
		}
	}
	return "", fmt.Errorf("%s does not pin %s", goMod, module)
}
