package handler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/contracts/typed"
	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/migrationpods"
	"github.com/virtflow/virtflow/kube/mtls"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/migrationproxy"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// MigrationTLS are the certificates the node agents join a migration's
// streams with: the agents' server certificate on the target, their
// client certificate on the source, both of the CA virt-operator keeps
// for the agents (upstream's virt-handler certificates).
type MigrationTLS struct {
	Server, Client *mtls.Files
}

// Migrations runs a live migration's node steps on this node
// (virt.NodeActivities). Each step reads the pods and the VMI it is told
// of from the cluster and acts only on this node's launcher of that VMI.
type Migrations struct {
	r   *podReconciler
	tls MigrationTLS
	// signals reaches the migration workflows the copies report to.
	signals typed.Signaller

	mu sync.Mutex
	// targets are the listeners of the migrations this node receives,
	// by migration UID.
	targets map[string]*migrationproxy.Target
}

// NewMigrations returns the node steps of the agent configured by cfg;
// c reads pods, VMIs and the claims' volumes; signals (the agent's
// Temporal client; nil reports nothing) carries a copy's progress to its
// migration workflow.
func NewMigrations(c client.Client, cfg Config, certs MigrationTLS, signals typed.Signaller) *Migrations {
	return &Migrations{r: &podReconciler{c: c, cfg: cfg}, tls: certs, signals: signals, targets: map[string]*migrationproxy.Target{}}
}

// migrationProxyDir is where, in a launcher pod's sockets volume, the
// streams' unix sockets live (upstream's /var/run/kubevirt/migrationproxy).
const migrationProxyDir = "migrationproxy"

// podPaths are a launcher pod's sockets directory as its launcher sees it
// and as this agent reaches it.
type podPaths struct {
	inPod, onHost string
}

func (m *Migrations) paths(pod *corev1.Pod) podPaths {
	if m.r.cfg.KubeletRoot == "" {
		dir := launcher.RuntimeDirFor(m.r.cfg.podDir(pod.Namespace, pod.Name))
		return podPaths{inPod: dir, onHost: dir}
	}
	return podPaths{inPod: launcherpod.SocketsDir,
		onHost: launcherpod.HostEmptyDir(m.r.cfg.KubeletRoot, string(pod.UID), launcherpod.SocketsVolume)}
}

// proxyDir creates the pod's migration proxy directory, owned by the
// launcher's user, whose libvirt and QEMU create and open its sockets.
func (m *Migrations) proxyDir(p podPaths) (podPaths, error) {
	dir := podPaths{inPod: filepath.Join(p.inPod, migrationProxyDir), onHost: filepath.Join(p.onHost, migrationProxyDir)}
	if err := os.MkdirAll(dir.onHost, 0o700); err != nil {
		return dir, fmt.Errorf("creating %s: %w", dir.onHost, err)
	}
	if err := os.Chown(dir.onHost, m.r.cfg.UID, m.r.cfg.GID); err != nil {
		return dir, fmt.Errorf("handing %s to uid %d: %w", dir.onHost, m.r.cfg.UID, err)
	}
	return dir, nil
}

// sidePod reads the pod read names (the source or the target) and checks
// it is this node's.
func (m *Migrations) sidePod(ctx context.Context, req virt.NodeRequest,
	read func(context.Context, client.Reader, virt.NodeRequest) (*corev1.Pod, error)) (*corev1.Pod, error) {
	pod, err := read(ctx, m.r.c, req)
	if err == nil {
		err = migrationpods.OnNode(pod, m.r.cfg.NodeName)
	}
	var mm *migrationpods.Mismatch
	if errors.As(err, &mm) {
		return nil, temporal.NewNonRetryableApplicationError(mm.Error(), virt.ErrTypeMigrationRefused, nil)
	}
	return pod, err
}

// vmi reads the VMI the request names, the same object.
func (m *Migrations) vmi(ctx context.Context, req virt.NodeRequest) (*kubevirtv1.VirtualMachineInstance, error) {
	vmi := &kubevirtv1.VirtualMachineInstance{}
	if err := m.r.c.Get(ctx, client.ObjectKey{Namespace: req.VMI.Namespace, Name: req.VMI.Name}, vmi); err != nil {
		return nil, fmt.Errorf("reading VirtualMachineInstance %s: %w", req.VMI.Name, err)
	}
	if string(vmi.UID) != req.VMI.UID {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("VirtualMachineInstance %s is not the one this migration moves", req.VMI.Name),
			virt.ErrTypeMigrationRefused, nil)
	}
	return vmi, nil
}

// ReadCopy says what this node's launcher of the VMI runs: the source's
// when this is the source node, else the target's. A pod that is gone
// holds nothing; a launcher that does not answer while its pod runs is
// asked again (the error retries).
func (m *Migrations) ReadCopy(ctx context.Context, req virt.NodeRequest) (virt.Copy, error) {
	source := req.Plan.Source.Node == m.r.cfg.NodeName
	read := migrationpods.Target
	if source {
		read = migrationpods.Source
	}
	pod, err := m.sidePod(ctx, req, read)
	c := virt.CopyGone
	if err == nil {
		c, err = m.copyIn(ctx, pod)
	} else if apierrors.IsNotFound(err) {
		err = nil
	}
	if err == nil && !source && c != virt.CopyIncoming {
		// The target received the guest or never will: its streams close.
		m.closeTarget(req.Migration.UID)
	}
	return c, err
}

// copyIn reads the copy of the launcher in pod.
func (m *Migrations) copyIn(ctx context.Context, pod *corev1.Pod) (virt.Copy, error) {
	l := m.r.cfg.locate(pod)
	st, err := l.client().Status(ctx)
	if err == nil {
		return copyOf(st, true), nil
	}
	if final, rerr := launcher.ReadStatus(l.dir); rerr == nil && final.Exited {
		return copyOf(final, true), nil
	}
	if !l.running() {
		return virt.CopyGone, nil
	}
	return "", fmt.Errorf("asking the launcher of pod %s what it runs: %w", pod.Name, err)
}

// AbortMigration cancels the copy the source's launcher runs; one that
// already ended is left as it is.
func (m *Migrations) AbortMigration(ctx context.Context, req virt.NodeRequest) error {
	pod, err := m.sidePod(ctx, req, migrationpods.Source)
	if apierrors.IsNotFound(err) {
		// No source pod, no copy running from it.
		return nil
	} else if err != nil {
		return err
	}
	cl := m.r.cfg.locate(pod).client()
	st, err := cl.Migration(ctx)
	if err != nil {
		return fmt.Errorf("reading the migration of pod %s: %w", pod.Name, err)
	}
	if st.ID != req.Migration.UID || st.Phase != launcher.MigrationRunning {
		return nil
	}
	if err := cl.Command(ctx, "migrate-abort"); err != nil {
		if after, err2 := cl.Migration(ctx); err2 == nil && after.Phase != launcher.MigrationRunning {
			return nil
		}
		return fmt.Errorf("aborting the migration of pod %s: %w", pod.Name, err)
	}
	return nil
}

// ResumeSource resumes the source's guest a copy left paused.
func (m *Migrations) ResumeSource(ctx context.Context, req virt.NodeRequest) error {
	pod, err := m.sidePod(ctx, req, migrationpods.Source)
	if apierrors.IsNotFound(err) {
		return failed("the source pod " + req.Plan.Source.Pod + " is gone: its guest cannot be resumed")
	} else if err != nil {
		return err
	}
	cl := m.r.cfg.locate(pod).client()
	if err := cl.Command(ctx, "unpause"); err != nil {
		if st, err2 := cl.Status(ctx); err2 == nil && copyOf(st, true) != virt.CopyPaused {
			return nil
		}
		return fmt.Errorf("resuming the guest of pod %s: %w", pod.Name, err)
	}
	return nil
}

// heartbeatEvery paces the node steps' waits.
const heartbeatEvery = 500 * time.Millisecond

// sleep waits one beat, heartbeating details; false when ctx ended.
func sleep(ctx context.Context, details ...any) bool {
	activity.RecordHeartbeat(ctx, details...)
	select {
	case <-ctx.Done():
		return false
	case <-time.After(heartbeatEvery):
		return true
	}
}
