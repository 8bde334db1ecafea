// Package hostpath is the hostpath provisioner on one node: it serves the
// CSI driver kubevirt.io.hostpath-provisioner for the storage pools the
// HostPathProvisioner CRs define, provisions volumes for the claims the
// scheduler placed on this node, and deletes released ones.
package hostpath

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hppv1beta1 "github.com/virtflow/virtflow/api/hostpathprovisioner/v1beta1"
	"github.com/virtflow/virtflow/node/csi"
)

// LegacyPoolName names the pool of a HostPathProvisioner's legacy
// pathConfig, for StorageClasses without a storagePool parameter.
const LegacyPoolName = "legacy"

// Config describes the provisioner of one node.
type Config struct {
	// NodeName is the node whose claims this provisioner serves.
	NodeName string
	// HostRoot prefixes every pool path: "/" on a real node; a directory
	// per node when several embedded nodes share one machine, so each has
	// its own pools.
	HostRoot string
	// Version is reported by the CSI driver.
	Version string
	// KubeletRoot, when set, is the root directory of the node's kubelet,
	// with which the driver registers (as node-driver-registrar does) so
	// that the kubelet mounts the driver's volumes into pods.
	KubeletRoot string
	// SocketPath, when set, is where the driver listens (its DaemonSet's
	// socket directory, shared with the sidecars).
	SocketPath string
	// Sidecars: node-driver-registrar and external-provisioner run beside
	// the driver, so it neither registers itself nor provisions or
	// deletes volumes.
	Sidecars bool
}

// Socket is the CSI driver's unix socket for a node: short, for the
// 108-byte socket path limit, and distinct per node and host root.
func (c Config) Socket() string {
	if c.SocketPath != "" {
		return c.SocketPath
	}
	sum := sha256.Sum256([]byte(c.NodeName + "\x00" + c.HostRoot))
	return filepath.Join("/run/virtflow", "hpp-"+hex.EncodeToString(sum[:])[:12], "csi.sock")
}

// pools runs the CSI driver for the pools HostPathProvisioner CRs define,
// restarting it when they change.
type pools struct {
	c   client.Client
	cfg Config

	mu      sync.Mutex
	current map[string]string
	stop    func()
}

// Reconcile recomputes the pools from every HostPathProvisioner.
func (p *pools) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	var list hppv1beta1.HostPathProvisionerList
	if err := p.c.List(ctx, &list); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing HostPathProvisioners: %w", err)
	}
	want := map[string]string{}
	for _, hpp := range list.Items {
		if hpp.DeletionTimestamp != nil {
			continue
		}
		for _, sp := range hpp.Spec.StoragePools {
			want[sp.Name] = filepath.Join(p.cfg.HostRoot, sp.Path)
		}
		if pc := hpp.Spec.PathConfig; pc != nil && pc.Path != "" {
			want[LegacyPoolName] = filepath.Join(p.cfg.HostRoot, pc.Path)
		}
	}
	return ctrl.Result{}, p.apply(want)
}

func (p *pools) apply(want map[string]string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if maps.Equal(want, p.current) && (p.stop != nil || len(want) == 0) {
		return nil
	}
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	p.current = want
	if len(want) == 0 {
		return nil
	}
	d, err := csi.NewDriver(csi.Config{NodeName: p.cfg.NodeName, Pools: want, Version: p.cfg.Version})
	if err != nil {
		return fmt.Errorf("configuring CSI driver on %s: %w", p.cfg.NodeName, err)
	}
	sock := p.cfg.Socket()
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return fmt.Errorf("creating CSI socket directory: %w", err)
	}
	if p.stop, err = d.Start(sock); err != nil {
		return fmt.Errorf("serving CSI driver on %s: %w", sock, err)
	}
	return nil
}

// Shutdown stops the driver and removes its socket's directory, which is
// named after the node and host root and would otherwise be left behind.
func (p *pools) Shutdown() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	if p.cfg.SocketPath != "" {
		// A directory shared with the sidecars: only the socket goes.
		_ = os.Remove(p.cfg.SocketPath)
		return
	}
	_ = os.RemoveAll(filepath.Dir(p.cfg.Socket()))
}
