package handler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/migrationpods"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/migrationproxy"
)

// handlerServerName is the name the agents' certificate carries, which
// the source checks of the target (virt-operator's HandlerServerName).
const handlerServerName = "virt-handler"

// MigrateDomain copies the VMI from this (the source) node to the target
// the request's endpoint names and waits for the copy's end, heartbeating
// its progress and aborting it past the plan's timeouts. The launcher's
// status names the migration, so a retry finds the copy it started: one
// that succeeded is done, one that runs is waited for, one that failed
// fails the step for good.
func (m *Migrations) MigrateDomain(ctx context.Context, req virt.NodeRequest) error {
	pod, err := m.sidePod(ctx, req, migrationpods.Source)
	if err != nil {
		return err
	}
	cl := m.r.cfg.locate(pod).client()
	st, err := cl.Migration(ctx)
	if err != nil {
		return m.endedWithoutLauncher(pod, req, err)
	}
	if st.ID == req.Migration.UID {
		switch st.Phase {
		case launcher.MigrationSucceeded:
			return nil
		case launcher.MigrationFailed:
			return failed("Live migration failed " + st.Message)
		case launcher.MigrationRunning:
			return m.monitor(ctx, req, pod, cl)
		}
	}
	src, err := m.listenSource(ctx, req, pod)
	if err != nil {
		return err
	}
	defer src.Close()
	opts, err := m.migrateOptions(ctx, req, pod)
	if err != nil {
		return err
	}
	if err := cl.Migrate(ctx, req.Migration.UID, opts); err != nil {
		return failed(fmt.Sprintf("Live migration failed %v", err))
	}
	slog.Info("migrating", "vmi", req.VMI.Name, "namespace", req.VMI.Namespace, "target", req.Target.Node, "migration", req.Migration.Name)
	return m.monitor(ctx, req, pod, cl)
}

// endedWithoutLauncher: a launcher that no longer answers may have ended
// because its domain left; its final status says so.
func (m *Migrations) endedWithoutLauncher(pod *corev1.Pod, req virt.NodeRequest, cause error) error {
	if final, err := launcher.ReadStatus(m.r.cfg.locate(pod).dir); err == nil && final.Exited {
		if final.Reason == launcher.ReasonMigrated {
			return nil
		}
		return failed("Live migration failed: the source's guest ended: " + final.Message)
	}
	return fmt.Errorf("reading the migration of pod %s: %w", pod.Name, cause)
}

// listenSource opens the streams' sockets in the source pod, each joined
// to the target's port over TLS.
func (m *Migrations) listenSource(_ context.Context, req virt.NodeRequest, pod *corev1.Pod) (*migrationproxy.Source, error) {
	if m.tls.Client == nil {
		return nil, failed("this node agent has no migration certificate")
	}
	dir, err := m.proxyDir(m.paths(pod))
	if err != nil {
		return nil, err
	}
	onError := func(err error) { slog.Warn("migration stream", "migration", req.Migration.Name, "error", err) }
	owner := migrationproxy.Owner{UID: m.r.cfg.UID, GID: m.r.cfg.GID}
	src, err := migrationproxy.ListenSource(dir.onHost, req.VMI.UID, req.Endpoint.Address, req.Endpoint.Ports,
		m.tls.Client.Client(handlerServerName), owner, onError)
	if err != nil {
		return nil, fmt.Errorf("opening the streams of migration %s: %w", req.Migration.Name, err)
	}
	return src, nil
}

// migrateOptions are the copy's URIs, as the source pod sees its sockets
// (the target pod's are at the same paths), and the plan's settings.
func (m *Migrations) migrateOptions(ctx context.Context, req virt.NodeRequest, pod *corev1.Pod) (libvirt.MigrateOptions, error) {
	dir := m.paths(pod).inPod + "/" + migrationProxyDir
	uid := req.VMI.UID
	o := libvirt.MigrateOptions{
		DestURI:      "qemu+unix:///session?socket=" + migrationproxy.SocketPath(dir, uid, migrationproxy.LibvirtStream),
		MemoryURI:    "unix://" + migrationproxy.SocketPath(dir, uid, migrationproxy.MemoryStream),
		BandwidthMiB: req.Plan.BandwidthMiB, AutoConverge: req.Plan.AutoConverge, PostCopy: req.Plan.PostCopy,
	}
	if !req.Plan.BlockMigration {
		return o, nil
	}
	vmi, err := m.vmi(ctx, req)
	if err != nil {
		return o, err
	}
	if o.Disks, err = domain.BlockMigrated(vmi); err != nil {
		return o, failed(fmt.Sprintf("Live migration failed %v", err))
	}
	if len(o.Disks) > 0 {
		o.DisksURI = "unix://" + migrationproxy.SocketPath(dir, uid, migrationproxy.BlockStream)
	}
	return o, nil
}

// monitor waits for the copy's end. The copy progresses while the data
// left to send falls below its lowest mark; none for the plan's progress
// timeout, or a copy longer than its completion timeout, is aborted, with
// upstream's messages.
func (m *Migrations) monitor(ctx context.Context, req virt.NodeRequest, pod *corev1.Pod, cl *launcher.Client) error {
	start, lastProgress := time.Now(), time.Now()
	lowest := uint64(0)
	for {
		st, err := cl.Migration(ctx)
		if err != nil {
			// The source's launcher ends right after its domain left.
			return m.endedWithoutLauncher(pod, req, err)
		}
		switch st.Phase {
		case launcher.MigrationSucceeded:
			return nil
		case launcher.MigrationFailed:
			return failed("Live migration failed " + st.Message)
		}
		if p := st.Progress; p.DataRemaining > 0 && (lowest == 0 || p.DataRemaining < lowest) {
			lowest, lastProgress = p.DataRemaining, time.Now()
		}
		if why := overdue(req.Plan, start, lastProgress); why != "" {
			if err := cl.Command(ctx, "migrate-abort"); err != nil {
				slog.Warn("aborting a migration past its timeout", "migration", req.Migration.Name, "error", err)
			}
			return failed(why)
		}
		if !sleep(ctx, virt.Progress{Phase: virt.PhaseRunning, DataTotal: st.Progress.DataTotal, DataProcessed: st.Progress.DataProcessed,
			DataRemaining: st.Progress.DataRemaining, DirtyRate: st.Progress.MemoryDirtyRate, Iteration: st.Progress.MemoryIteration}) {
			return ctx.Err()
		}
	}
}

// overdue says why a copy must stop: no progress for the plan's progress
// timeout, or longer than its completion timeout (post-copy has neither).
func overdue(p virt.MigrationPlan, start, lastProgress time.Time) string {
	if p.PostCopy {
		return ""
	}
	if p.ProgressTimeout > 0 && time.Since(lastProgress) > p.ProgressTimeout {
		return fmt.Sprintf("Live migration stuck for %d seconds and has been aborted", int(time.Since(lastProgress).Seconds()))
	}
	if p.CompletionTimeout > 0 && time.Since(start) > p.CompletionTimeout {
		return fmt.Sprintf("Live migration is not completed after %d seconds and has been aborted", int(time.Since(start).Seconds()))
	}
	return ""
}

// failed is a copy that ended without moving the guest; the workflow
// settles it, no retry.
func failed(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, virt.ErrTypeMigrationFailed, nil)
}
