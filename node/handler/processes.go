package handler

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/virtflow/virtflow/node/launcher"
)

const pidFile = "launcher.pid"

// startLauncher runs a launcher for dir in its own session, detached from
// this agent, so restarting the agent leaves running guests alone; the pid
// file lets the next agent find it again.
func startLauncher(cmdline []string, dir string) (int, error) {
	args := append(append([]string{}, cmdline[1:]...), "--dir", dir)
	logf, err := os.OpenFile(filepath.Join(dir, "launcher.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("opening launcher log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(cmdline[0], args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting launcher %s: %w", cmdline[0], err)
	}
	pid := cmd.Process.Pid
	// Reap it when it exits while we are its parent; after an agent restart
	// init reaps it instead.
	go func() { _ = cmd.Wait() }()
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return pid, fmt.Errorf("recording launcher pid: %w", err)
	}
	return pid, nil
}

// launcherPID returns the pid of the launcher of dir if it still runs.
func launcherPID(dir string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(dir, pidFile))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return 0, false
	}
	return pid, alive(pid, dir)
}

// alive checks the pid exists, is not a zombie and still has dir on its
// command line, so a recycled pid is not mistaken for the launcher.
func alive(pid int, dir string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := strings.LastIndex(string(stat), ")"); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(cmdline), dir)
}

func signalLauncher(dir string, sig syscall.Signal) {
	if pid, ok := launcherPID(dir); ok {
		_ = syscall.Kill(pid, sig)
	}
}

// reapOrphans kills what a launcher that died without cleaning up left
// running: its libvirtd and qemu, recognised by the launcher's runtime
// directory in their command line or environment.
func reapOrphans(dir string) {
	rt := launcher.RuntimeDirFor(dir)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 1 || pid == os.Getpid() || pid == os.Getppid() {
			continue
		}
		for _, f := range []string{"cmdline", "environ"} {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
			if err == nil && strings.Contains(string(data), rt) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
	_ = os.RemoveAll(rt)
}
