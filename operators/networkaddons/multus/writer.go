package multus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The pod's ServiceAccount credentials, projected by the kubelet and
// rotated by it.
const (
	TokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	CAFile    = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
)

// Writer keeps Multus's files on the node in step with the master
// configuration and the pod's credentials.
type Writer struct {
	Paths Paths
	// Server is the API server's URL as the host reaches it.
	Server string
	// TokenFile and CAFile are the pod's credentials; the projected ones
	// when empty.
	TokenFile, CAFile string
}

// Sync writes the kubeconfig, then 00-multus.conf, each only when its
// content changed; the kubeconfig first, so the configuration never
// names credentials not yet written. It reports whether it wrote anything.
func (w Writer) Sync() (bool, error) {
	token, err := os.ReadFile(orDefault(w.TokenFile, TokenFile))
	if err != nil {
		return false, fmt.Errorf("reading the ServiceAccount token: %w", err)
	}
	ca, err := os.ReadFile(orDefault(w.CAFile, CAFile))
	if err != nil {
		return false, fmt.Errorf("reading the ServiceAccount CA: %w", err)
	}
	if err := os.MkdirAll(w.Paths.cacheDir(), 0o700); err != nil {
		return false, fmt.Errorf("creating %s: %w", w.Paths.cacheDir(), err)
	}
	wroteKC, err := writeIfChanged(w.Paths.Kubeconfig(), Kubeconfig(w.Server, ca, token), 0o600)
	if err != nil {
		return false, err
	}
	master, err := w.Paths.MasterPath()
	if err != nil {
		return wroteKC, err
	}
	data, err := os.ReadFile(master)
	if err != nil {
		return wroteKC, fmt.Errorf("reading the master CNI configuration: %w", err)
	}
	conf, err := Conf(data, w.Paths)
	if err != nil {
		return wroteKC, fmt.Errorf("%s: %w", master, err)
	}
	wroteConf, err := writeIfChanged(w.Paths.Conf(), conf, 0o644)
	return wroteKC || wroteConf, err
}

// Remove takes Multus out of the node's pod network: without its
// account, its configuration would fail every pod's sandbox.
func (w Writer) Remove() error {
	if err := os.Remove(w.Paths.Conf()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", w.Paths.Conf(), err)
	}
	return nil
}

// Run syncs every interval until ctx ends, then removes the configuration.
// A failed sync is reported and tried again.
func (w Writer) Run(ctx context.Context, interval time.Duration, report func(wrote bool, err error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		report(w.Sync())
		select {
		case <-ctx.Done():
			return w.Remove()
		case <-t.C:
		}
	}
}

// writeIfChanged replaces path with data atomically (written aside, then
// renamed: the runtime may read it at any moment) unless it holds data.
func writeIfChanged(path string, data []byte, mode os.FileMode) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".new")
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return false, fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return false, fmt.Errorf("setting the mode of %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return false, fmt.Errorf("replacing %s: %w", path, err)
	}
	return true, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
