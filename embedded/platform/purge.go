package platform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/embedded/kubenode"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// Purge removes what a stopped platform leaves on the host so that VMs
// survive it: the node's pods (and so its VMs), their network, mounts and
// cgroups, the node bridge, the launchers' shared cache and the kernel
// settings the node changed. Objects, workflows and disks in the data
// directory stay; the next `up` starts with no pod running.
func Purge(ctx context.Context, o Options) error {
	if os.Geteuid() != 0 {
		return errors.New("purging the node needs root: its pods' namespaces, mounts, cgroups and network rules are root's")
	}
	tools, err := ensureNodeTools(ctx, o, func(string) {})
	if err != nil {
		return err
	}
	cfg := nodeConfig(o, tools)
	extra := purgeExtraNodes(ctx, o, tools, recordedNodes(o))
	if _, err := os.Stat(cfg.DataDir); errors.Is(err, os.ErrNotExist) {
		return errors.Join(extra, NodeBridge.Remove(ctx))
	}
	return errors.Join(
		extra,
		kubenode.PurgeStopped(ctx, cfg),
		NodeBridge.Remove(ctx),
		removeLauncherCache(),
	)
}

// removeLauncherCache removes the launchers' libvirt cache and its parent
// when nothing else is there.
func removeLauncherCache() error {
	if err := os.RemoveAll(launcherpod.HostCacheDir); err != nil {
		return fmt.Errorf("removing %s: %w", launcherpod.HostCacheDir, err)
	}
	parent := filepath.Dir(launcherpod.HostCacheDir)
	if entries, err := os.ReadDir(parent); err == nil && len(entries) == 0 {
		return os.Remove(parent)
	}
	return nil
}
