package controlplane

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is one control-plane binary running as a child, with its output in
// <logDir>/<name>.log so a failed start can be diagnosed after the fact.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
	log  string
}

func startProcess(logDir, name, bin string, args []string) (*process, error) {
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log for %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group: a Ctrl-C on the terminal reaches virtflow, which then
	// stops the children in order instead of all of them dying at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1), log: logPath}
	go func() {
		p.done <- cmd.Wait()
		logFile.Close()
	}()
	return p, nil
}

// exited reports a process that died, with the tail of its log.
func (p *process) exited() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("%s exited (%v); see %s:\n%s", p.name, err, p.log, tail(p.log, 2000))
	default:
		return nil
	}
}

// stop sends SIGTERM and escalates to SIGKILL after the grace period.
func (p *process) stop(grace time.Duration) error {
	if p.exited() != nil {
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

func tail(path string, n int64) string {
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
