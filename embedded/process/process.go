// Package process runs the platform's long-lived child processes (the
// control plane, containerd, the kubelet), each with its log in a file of
// its own so a failed start can be diagnosed after the fact, and stops them
// in order.
package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Process is one binary running as a child, with its output appended to
// <logDir>/<name>.log.
type Process struct {
	name string
	cmd  *exec.Cmd
	// done is closed once the process has exited; err is then its exit.
	done chan struct{}
	err  error
	log  string
}

// Start runs bin with args; env, when given, is added to virtflow's own
// environment (later entries win).
func Start(logDir, name, bin string, args []string, env ...string) (*Process, error) {
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log for %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group: a Ctrl-C on the terminal reaches virtflow, which then
	// stops the children in order instead of all of them dying at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &Process{name: name, cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Exited reports a process that died, with the tail of its log.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); see %s:\n%s", p.name, p.err, p.log, Tail(p.log, 2000))
	default:
		return nil
	}
}

// Stop sends SIGTERM and escalates to SIGKILL after the grace period.
func (p *Process) Stop(grace time.Duration) error {
	if p.Exited() != nil {
		return nil
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return nil
	}
}

// Name is the name the process was started under.
func (p *Process) Name() string { return p.name }

// PID is the child's process ID.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Tail returns at most the last n bytes of the file at path.
func Tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := st.Size() - n
	if off < 0 {
		off = 0
	}
	buf := make([]byte, st.Size()-off)
	_, _ = f.ReadAt(buf, off)
	return string(buf)
}
