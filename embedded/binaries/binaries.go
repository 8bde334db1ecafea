// Package binaries builds the pinned upstream control-plane binaries (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, and kubectl for
// people) from the tools
// module once, into a cache directory keyed by their versions, and reuses
// them on every later start.
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
	// kubectl is for people (the README's walk-through), not the platform.
	"kubectl": "k8s.io/kubernetes/cmd/kubectl",
}

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

// Ensure returns a directory holding all five binaries, building the missing
// ones from toolsDir (the tools/k8s module) first. progress receives one line
// per step so a first, minutes-long build is not silent.
func Ensure(ctx context.Context, toolsDir, cacheRoot string, progress func(string)) (string, error) {
	key, err := versionKey(filepath.Join(toolsDir, "go.mod"))
	if err != nil {
		return "", err
	}
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
		if err := build(ctx, toolsDir, binDir, name); err != nil {
			return "", err
		}
	}
	return binDir, nil
}

func missingBinaries(binDir string) []string {
	var missing []string
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"} {
		if st, err := os.Stat(filepath.Join(binDir, name)); err != nil || st.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}

// build writes to a temporary name and renames, so an interrupted build
// never leaves a truncated binary that a later start would trust.
func build(ctx context.Context, toolsDir, binDir, name string) error {
	tmp := filepath.Join(binDir, "."+name+".partial")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", tmp, Packages[name])
	cmd.Dir = toolsDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s in %s: %w\n%s", name, toolsDir, err, out)
	}
	if err := os.Rename(tmp, filepath.Join(binDir, name)); err != nil {
		return fmt.Errorf("installing %s: %w", name, err)
	}
	return nil
}

// versionKey names the cache directory after the pinned Kubernetes and etcd
// versions, so bumping either in tools/k8s/go.mod triggers a rebuild.
func versionKey(goMod string) (string, error) {
	f, err := os.Open(goMod)
	if err != nil {
		return "", fmt.Errorf("reading tools module: %w", err)
	}
	defer f.Close()
	versions := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && (fields[0] == "k8s.io/kubernetes" || fields[0] == "go.etcd.io/etcd/server/v3") {
			versions[fields[0]] = fields[1]
		}
	}
	k8s, etcd := versions["k8s.io/kubernetes"], versions["go.etcd.io/etcd/server/v3"]
	if k8s == "" || etcd == "" {
		return "", fmt.Errorf("%s does not pin k8s.io/kubernetes and go.etcd.io/etcd/server/v3", goMod)
	}
	return fmt.Sprintf("k8s-%s-etcd-%s", k8s, etcd), nil
}
