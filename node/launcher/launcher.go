package launcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/wire/launcherpod"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Status is what the launcher reports on its socket and, at exit, in
// status.json.
type Status struct {
	Domain string        `json:"domain"`
	State  libvirt.State `json:"state"`
	Reason string        `json:"reason,omitempty"`
	// Exited is set once the domain is gone for good.
	Exited bool `json:"exited,omitempty"`
	// Message explains a failure to start.
	Message string `json:"message,omitempty"`
	// AgentConnected is set while the guest agent has its channel open.
	AgentConnected bool `json:"agentConnected,omitempty"`
}

// Run starts the VMI described in dir/config.json and blocks until the
// domain ends or ctx is cancelled (the pod is being deleted), in which case
// the guest gets its termination grace period to power off.
func Run(ctx context.Context, dir string) error {
	cfg, err := ReadConfig(dir)
	if err != nil {
		return err
	}
	if asRoot() {
		if err := os.Chown(dir, cfg.UID, cfg.GID); err != nil {
			return fmt.Errorf("handing %s to uid %d: %w", dir, cfg.UID, err)
		}
	}
	err = run(ctx, cfg)
	if err != nil {
		_ = writeStatus(dir, Status{Domain: domain.Name(&cfg.VMI), State: libvirt.Shutoff, Exited: true, Message: err.Error()})
	}
	return err
}

// run starts the domain and watches it. Its progress lines are the
// launcher's log (`kubectl logs` of a launcher pod).
func run(ctx context.Context, cfg Config) error {
	name := domain.Name(&cfg.VMI)
	logf("starting libvirtd for VMI %s/%s (%s guest)", cfg.VMI.Namespace, cfg.VMI.Name, cfg.DomainType)
	hv, stop, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer stop()
	if err := serveDHCP(ctx, cfg.Network); err != nil {
		return err
	}
	if err := startPasst(ctx, &cfg); err != nil {
		return err
	}
	xml, err := DomainXML(ctx, cfg)
	if err != nil {
		return err
	}
	l := &launcher{cfg: cfg, hv: hv, name: name}
	l.incoming.Store(cfg.MigrationTarget)
	if !cfg.MigrationTarget {
		paused := cfg.VMI.Spec.StartStrategy != nil && *cfg.VMI.Spec.StartStrategy == kubevirtv1.StartStrategyPaused
		if _, err := hv.Create(ctx, xml, paused); err != nil {
			return err
		}
		logf("domain %s started", name)
	}
	srv, err := serve(cfg.socket(), l)
	if err != nil {
		return err
	}
	defer srv.Close()
	if cfg.MigrationTarget && !l.awaitIncoming(ctx) {
		return l.terminate()
	}
	err = l.watch(ctx)
	logf("domain %s ended", name)
	return err
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s virt-launcher: %s\n", time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), fmt.Sprintf(format, args...))
}

// DomainXML prepares the VMI's volumes in cfg.Dir and returns the domain
// the launcher would start. Benchmarks start the same domain on bare
// libvirt with it.
func DomainXML(ctx context.Context, cfg Config) (string, error) {
	res, err := prepareVolumes(ctx, cfg)
	if err != nil {
		return "", err
	}
	in := domain.Input{
		VMI: &cfg.VMI, Type: cfg.DomainType, Sources: res.sources, Kernel: res.kernel, Initrd: res.initrd,
		SerialLog: filepath.Join(cfg.Dir, SerialLog), VNCSocket: cfg.vncSocket(), AgentSocket: cfg.agentSocket(),
		Network: cfg.Network, Firmware: domain.DebianOVMF, NVRAMDir: cfg.Dir,
	}
	if c := cfg.VMI.Spec.Domain.CPU; c != nil && c.DedicatedCPUPlacement {
		if in.CPUSet, err = podCPUSet(); err != nil {
			return "", err
		}
	}
	return domain.BuildXML(in)
}

// connect starts the launcher's own libvirt daemon and connects to it; a
// simulated domain needs no daemon: libvirt's test driver runs in-process.
func connect(ctx context.Context, cfg Config) (libvirt.Hypervisor, func(), error) {
	if cfg.DomainType == domain.Simulated {
		hv, err := libvirt.Connect("test:///default")
		if err != nil {
			return nil, nil, err
		}
		return hv, func() { _ = hv.Close() }, nil
	}
	daemon, err := StartDaemon(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return nil, nil, err
	}
	hv, err := libvirt.Connect(daemon.URI())
	if err != nil {
		daemon.Stop()
		return nil, nil, err
	}
	return hv, func() { _ = hv.Close(); daemon.Stop() }, nil
}

type launcher struct {
	cfg       Config
	hv        libvirt.Hypervisor
	name      string
	frozen    freezer
	migration migrator
	// incoming is set while a migration target waits for its domain.
	incoming atomic.Bool
}

func (l *launcher) status(ctx context.Context) Status {
	info, err := l.hv.Lookup(ctx, l.name)
	if l.incoming.Load() && (errors.Is(err, libvirt.ErrNotFound) || err == nil && info.State != libvirt.Running) {
		return Status{Domain: l.name, State: libvirt.NoState, Reason: ReasonIncoming}
	}
	if errors.Is(err, libvirt.ErrNotFound) {
		return Status{Domain: l.name, State: libvirt.Shutoff, Exited: true}
	}
	if err != nil {
		return Status{Domain: l.name, State: libvirt.NoState, Message: err.Error()}
	}
	return Status{Domain: l.name, State: info.State, Reason: info.Reason, Exited: info.State == libvirt.Shutoff}
}

// watch returns once the domain is gone, writing its final status.
func (l *launcher) watch(ctx context.Context) error {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return l.terminate()
		case <-t.C:
		}
		st := l.status(ctx)
		if !st.Exited {
			continue
		}
		// The domain leaves the source before libvirt's migrate call
		// returns: until then, whether it moved or ended is not known,
		// and a guest that moved must not be reported as one that ended.
		switch l.migration.status().Phase {
		case MigrationRunning:
			continue
		case MigrationSucceeded:
			// A domain that left by migrating runs on, on its target.
			st.Reason = ReasonMigrated
		}
		return writeStatus(l.cfg.Dir, st)
	}
}

// terminate asks the guest to power off and destroys it when the grace
// period runs out, as a pod deletion does with its containers.
func (l *launcher) terminate() error {
	ctx := context.Background()
	grace := 30 * time.Second
	if g := l.cfg.VMI.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	if g, ok := readGracePeriod(l.cfg.Dir); ok {
		grace = time.Duration(g) * time.Second
	}
	if grace > 0 {
		_ = l.hv.Shutdown(ctx, l.name)
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) {
			if l.status(ctx).Exited {
				return writeStatus(l.cfg.Dir, Status{Domain: l.name, State: libvirt.Shutoff, Reason: "shutdown", Exited: true})
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if err := l.hv.Destroy(ctx, l.name); err != nil && !errors.Is(err, libvirt.ErrNotFound) {
		return err
	}
	return writeStatus(l.cfg.Dir, Status{Domain: l.name, State: libvirt.Shutoff, Reason: "destroyed", Exited: true})
}

func writeStatus(dir string, st Status) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, StatusFile), data, 0o644)
}

// WriteFailedStart records, for a launcher that will never start the
// VMI's domain, why: virt-handler could not prepare what it needs.
func WriteFailedStart(dir string, vmi *kubevirtv1.VirtualMachineInstance, cause error) error {
	return writeStatus(dir, Status{Domain: domain.Name(vmi), State: libvirt.Shutoff, Exited: true, Message: cause.Error()})
}

// ReadStatus reads the status a launcher left at exit.
func ReadStatus(dir string) (Status, error) {
	var st Status
	data, err := os.ReadFile(filepath.Join(dir, StatusFile))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(data, &st)
}

const graceFile = "grace-period"

// WriteGracePeriod overrides the grace period the launcher in dir gives its
// guest when it is told to stop.
func WriteGracePeriod(dir string, seconds int64) error {
	return os.WriteFile(filepath.Join(dir, graceFile), []byte(strconv.FormatInt(seconds, 10)), 0o644)
}

func readGracePeriod(dir string) (int64, bool) {
	data, err := os.ReadFile(filepath.Join(dir, graceFile))
	if err != nil {
		return 0, false
	}
	g, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return g, err == nil && g >= 0
}

// RunPod is the launcher of a launcher pod: it waits for the config the
// node agent writes into the pod's private directory, then runs the VMI.
// Deleting the pod before the config arrives ends it without a guest.
func RunPod(ctx context.Context) error {
	dir := launcherpod.PrivateDir
	logf("waiting for virt-handler to hand over the VMI in %s", dir)
	for {
		if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
	return Run(ctx, dir)
}
