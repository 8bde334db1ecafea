package handler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	if err := m.checkEndpoint(ctx, req); err != nil {
		return err
	}
	if err := allowPostCopy(req.Plan.PostCopy); err != nil {
		return err
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

// checkEndpoint takes the target's address from the cluster, not from
// the request: the guest's memory goes only to the node agent of the node
// the migration's target pod runs on.
func (m *Migrations) checkEndpoint(ctx context.Context, req virt.NodeRequest) error {
	target, err := migrationpods.Target(ctx, m.r.c, req)
	if err != nil {
		return fmt.Errorf("reading the target pod: %w", err)
	}
	agents := &corev1.PodList{}
	if err := m.r.c.List(ctx, agents, client.InNamespace(m.r.cfg.Namespace), client.MatchingLabels{"kubevirt.io": "virt-handler"}); err != nil {
		return fmt.Errorf("listing the node agents: %w", err)
	}
	for _, a := range agents.Items {
		if a.Spec.NodeName == target.Spec.NodeName && a.Status.PodIP == req.Endpoint.Address && target.Spec.NodeName != m.r.cfg.NodeName {
			return nil
		}
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s is not the node agent of node %q, where the target pod %s runs",
		req.Endpoint.Address, target.Spec.NodeName, target.Name), virt.ErrTypeMigrationRefused, nil)
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
// left to send falls below its lowest mark; the watchdog judges it against
// the plan's timeouts, with upstream's remedies and messages.
func (m *Migrations) monitor(ctx context.Context, req virt.NodeRequest, pod *corev1.Pod, cl *launcher.Client) error {
	mode, err := m.copyMode(ctx, req)
	if err != nil {
		return err
	}
	w := newWatchdog(req.Plan, mode, time.Now())
	if mode == "" {
		if err := m.recordMode(ctx, req, w.mode); err != nil {
			return err
		}
	}
	rep := m.reporter()
	defer forgetCopy(req, m.r.cfg.NodeName)
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
		reportCopy(req, m.r.cfg.NodeName, st.Progress)
		before := w.mode
		if err := w.act(ctx, cl, st.Progress.DataRemaining, time.Now()); err != nil {
			return err
		}
		if w.mode != before {
			slog.Info("assisting a migration to complete", "vmi", req.VMI.Name, "namespace", req.VMI.Namespace, "mode", w.mode)
			if err := m.recordMode(ctx, req, w.mode); err != nil {
				return err
			}
		}
		counters := copyProgressOf(st.Progress)
		rep.report(ctx, counters)
		if !sleep(ctx, virt.Progress{Phase: virt.PhaseRunning, CopyProgress: counters}) {
			return ctx.Err()
		}
	}
}

// failed is a copy that ended without moving the guest; the workflow
// settles it, no retry.
func failed(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, virt.ErrTypeMigrationFailed, nil)
}
