package launcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Daemon is a launcher's own session-mode libvirt daemon. Benchmarks start
// one alone for their bare-libvirt baseline.
type Daemon struct {
	cmd  *exec.Cmd
	done chan error
	sock string
	// runtime is removed with the daemon: it only holds sockets and state.
	runtime string
}

// StartDaemon runs libvirtd as cfg.UID with HOME and XDG directories
// inside the launcher directory, so each VMI has a daemon of its own, while
// XDG_CACHE_HOME is shared to reuse the node's qemu capability cache.
func StartDaemon(ctx context.Context, cfg Config) (*Daemon, error) {
	if cfg.UID == 0 {
		return nil, errors.New("refusing to run libvirtd as root: set a non-root uid")
	}
	rt := cfg.runtimeDir()
	home, run, conf := filepath.Join(cfg.Dir, "home"), filepath.Join(rt, "run"), filepath.Join(rt, "config")
	if err := makeDaemonDirs(cfg, rt, home, run, conf); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(cfg.Dir, "libvirtd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening libvirtd log: %w", err)
	}
	cmd := exec.Command("/usr/sbin/libvirtd")
	cmd.Dir = home
	cmd.Env = []string{
		"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "XDG_RUNTIME_DIR=" + run,
		"XDG_CONFIG_HOME=" + conf, "XDG_CACHE_HOME=" + cfg.CacheDir,
		"LIBVIRT_LOG_OUTPUTS=3:stderr",
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if asRoot() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(cfg.UID), Gid: uint32(cfg.GID), Groups: kvmGroups(cfg)}
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting libvirtd: %w", err)
	}
	d := &Daemon{cmd: cmd, done: make(chan error, 1), sock: filepath.Join(run, "libvirt", "libvirt-sock"), runtime: rt}
	go func() { d.done <- cmd.Wait(); logf.Close() }()
	return d, d.waitSocket(ctx)
}

// makeDaemonDirs creates libvirtd's directories, owned by cfg.UID. A
// launcher that is not root (in a pod) already is that user.
func makeDaemonDirs(cfg Config, rt string, dirs ...string) error {
	if asRoot() {
		// The parent is shared by every launcher and only needs to be
		// traversable by the unprivileged user.
		if err := os.MkdirAll(filepath.Dir(rt), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(rt), err)
		}
		if err := os.Chmod(filepath.Dir(rt), 0o755); err != nil {
			return fmt.Errorf("opening %s: %w", filepath.Dir(rt), err)
		}
	}
	for _, d := range append([]string{rt, cfg.CacheDir}, dirs...) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
		if !asRoot() {
			continue
		}
		if err := os.Chown(d, cfg.UID, cfg.GID); err != nil {
			return fmt.Errorf("handing %s to uid %d: %w", d, cfg.UID, err)
		}
	}
	return nil
}

// asRoot tells a launcher started by a node agent (root, handing its guest
// to an unprivileged user) from one in a pod (already that user).
func asRoot() bool { return os.Geteuid() == 0 }

func kvmGroups(cfg Config) []uint32 {
	if cfg.DomainType != "kvm" {
		return nil
	}
	st, err := os.Stat("/dev/kvm")
	if err != nil {
		return nil
	}
	return []uint32{st.Sys().(*syscall.Stat_t).Gid}
}

func (d *Daemon) waitSocket(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		// The socket file exists a moment before libvirtd listens on it;
		// only a successful connection means it is ready.
		if c, err := net.Dial("unix", d.sock); err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-d.done:
			return fmt.Errorf("libvirtd exited before listening (%v); see libvirtd.log", err)
		case <-ctx.Done():
			return fmt.Errorf("libvirtd socket %s did not appear: %w", d.sock, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// URI is the connection URI of this daemon.
func (d *Daemon) URI() string { return "qemu+unix:///session?socket=" + d.sock }

// Stop ends the daemon and removes its runtime directory.
func (d *Daemon) Stop() {
	defer os.RemoveAll(d.runtime)
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}
