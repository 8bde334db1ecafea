package handler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/migrationpods"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/migrationproxy"
)

// PrepareTarget hands the VMI to the target pod's launcher as an incoming
// migration (its network and disks prepared as for a start, the domain
// left to arrive), waits until the launcher's libvirt waits for it, and
// opens a TLS port per stream on this node, joined to the pod's sockets.
// A retry finds the launcher configured and the ports open.
func (m *Migrations) PrepareTarget(ctx context.Context, req virt.NodeRequest) (virt.TargetEndpoint, error) {
	pod, err := m.sidePod(ctx, req, migrationpods.Target)
	if err != nil {
		return virt.TargetEndpoint{}, err
	}
	if err := allowPostCopy(req.Plan.PostCopy); err != nil {
		return virt.TargetEndpoint{}, err
	}
	if err := m.configureTarget(ctx, req, pod); err != nil {
		return virt.TargetEndpoint{}, err
	}
	if err := m.awaitIncoming(ctx, pod); err != nil {
		return virt.TargetEndpoint{}, err
	}
	dir, err := m.proxyDir(m.paths(pod))
	if err != nil {
		return virt.TargetEndpoint{}, err
	}
	return m.listenTarget(req, m.paths(pod), dir)
}

// configureTarget writes the target launcher's configuration once the
// kubelet set the pod up: the VMI as a start would have it, waiting for
// its domain.
func (m *Migrations) configureTarget(ctx context.Context, req virt.NodeRequest, pod *corev1.Pod) error {
	l := m.r.cfg.locate(pod)
	if _, err := os.Stat(filepath.Join(l.dir, launcher.ConfigFile)); err == nil {
		return nil
	}
	vmi, err := m.vmi(ctx, req)
	if err != nil {
		return err
	}
	for {
		fresh, err := m.sidePod(ctx, req, migrationpods.Target)
		if err != nil {
			return err
		}
		if _, serr := os.Stat(l.dir); serr == nil {
			cfg, err := m.r.launchConfig(ctx, vmi, fresh)
			if err == nil {
				cfg.MigrationTarget = true
				return launcher.WriteConfigAt(l.dir, cfg)
			}
			if !errors.Is(err, errVolumesNotReady) && !errors.Is(err, errSandboxNotReady) {
				return temporal.NewNonRetryableApplicationError(fmt.Sprintf("preparing the target pod %s: %v", pod.Name, err),
					virt.ErrTypeMigrationFailed, err)
			}
		}
		if !sleep(ctx, "waiting for the target pod's volumes and network") {
			return ctx.Err()
		}
	}
}

// awaitIncoming waits until the target launcher's libvirt waits for the
// domain (or already runs it, on a retry after the copy).
func (m *Migrations) awaitIncoming(ctx context.Context, pod *corev1.Pod) error {
	l := m.r.cfg.locate(pod)
	for {
		st, err := l.client().Status(ctx)
		switch {
		case err == nil && (st.Reason == launcher.ReasonIncoming || copyOf(st, true) == virt.CopyRunning):
			return nil
		case err == nil && st.Exited:
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf("the target launcher of pod %s ended: %s", pod.Name, st.Message),
				virt.ErrTypeMigrationFailed, nil)
		}
		if final, rerr := launcher.ReadStatus(l.dir); rerr == nil && final.Exited {
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf("the target launcher of pod %s ended: %s", pod.Name, final.Message),
				virt.ErrTypeMigrationFailed, nil)
		}
		if !sleep(ctx, "waiting for the target launcher") {
			return ctx.Err()
		}
	}
}

// listenTarget opens the migration's ports, or returns those an earlier
// attempt opened: the target's libvirt, the memory stream, and the block
// stream when the plan copies disks.
func (m *Migrations) listenTarget(req virt.NodeRequest, pod, dir podPaths) (virt.TargetEndpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.targets[req.Migration.UID]; ok {
		return virt.TargetEndpoint{Address: m.r.cfg.NodeIP, Ports: t.Ports}, nil
	}
	if m.tls.Server == nil {
		return virt.TargetEndpoint{}, temporal.NewNonRetryableApplicationError("this node agent has no migration certificate",
			virt.ErrTypeMigrationFailed, nil)
	}
	uid := req.VMI.UID
	sockets := map[int]string{
		migrationproxy.LibvirtStream: filepath.Join(pod.onHost, "run", "libvirt", "libvirt-sock"),
		migrationproxy.MemoryStream:  migrationproxy.SocketPath(dir.onHost, uid, migrationproxy.MemoryStream),
	}
	if req.Plan.BlockMigration {
		sockets[migrationproxy.BlockStream] = migrationproxy.SocketPath(dir.onHost, uid, migrationproxy.BlockStream)
	}
	onError := func(err error) { slog.Warn("migration stream", "migration", req.Migration.Name, "error", err) }
	t, err := migrationproxy.ListenTarget(m.r.cfg.NodeIP, m.tls.Server.Server(), sockets, onError)
	if err != nil {
		return virt.TargetEndpoint{}, fmt.Errorf("opening the ports of migration %s: %w", req.Migration.Name, err)
	}
	m.targets[req.Migration.UID] = t
	// Streams open when the copy starts; a migration whose end this node
	// never hears of (its workflow terminated) does not keep its ports.
	time.AfterFunc(targetPortsLifetime, func() { m.closeTarget(req.Migration.UID) })
	return virt.TargetEndpoint{Address: m.r.cfg.NodeIP, Ports: t.Ports}, nil
}

// targetPortsLifetime bounds how long a target's ports stay open; joined
// connections outlive it.
const targetPortsLifetime = 30 * time.Minute

// closeTarget stops listening for a migration that ended.
func (m *Migrations) closeTarget(migrationUID string) {
	m.mu.Lock()
	t, ok := m.targets[migrationUID]
	delete(m.targets, migrationUID)
	m.mu.Unlock()
	if ok {
		if err := t.Close(); err != nil {
			slog.Warn("closing a migration's ports", "migration", migrationUID, "error", err)
		}
	}
}
