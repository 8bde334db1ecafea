package process

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Group is processes started in order and stopped in reverse.
type Group struct {
	// LogDir receives each process's log.
	LogDir string
	// Restart starts a process that exits without being stopped again,
	// after a pause that doubles while it keeps failing fast: a killed
	// kubelet or containerd comes back as a system service manager would
	// bring it back.
	Restart bool

	mu      sync.Mutex
	members []*member
}

// member is one process of the group across its restarts.
type member struct {
	name, bin string
	args, env []string
	current   *Process
	stopping  bool
	// crashLoop is set once the process failed fast restartLimit times in
	// a row.
	crashLoop error
}

const (
	// quickExit is a lifetime short enough to count as a failed start.
	quickExit    = 10 * time.Second
	restartLimit = 5
)

// firstPause is the wait before the first restart after a long run.
var firstPause = time.Second

// Start starts a process and adds it to the group.
func (g *Group) Start(name, bin string, args []string, env ...string) error {
	p, err := Start(g.LogDir, name, bin, args, env...)
	if err != nil {
		return err
	}
	m := &member{name: name, bin: bin, args: args, env: env, current: p}
	g.mu.Lock()
	g.members = append(g.members, m)
	g.mu.Unlock()
	if g.Restart {
		go g.supervise(m)
	}
	return nil
}

// supervise restarts m's process each time it exits unasked.
func (g *Group) supervise(m *member) {
	pause, fast := firstPause, 0
	for {
		g.mu.Lock()
		p := m.current
		g.mu.Unlock()
		started := time.Now()
		<-p.done
		if time.Since(started) < quickExit {
			fast++
		} else {
			pause, fast = firstPause, 0
		}
		g.mu.Lock()
		if m.stopping {
			g.mu.Unlock()
			return
		}
		if fast >= restartLimit {
			m.crashLoop = fmt.Errorf("%s keeps exiting (%v); see %s:\n%s", m.name, p.err, p.log, Tail(p.log, 2000))
		}
		g.mu.Unlock()
		note(p.log, fmt.Sprintf("virtflow: %s exited (%v); starting it again in %s", m.name, p.err, pause))
		time.Sleep(pause)
		pause = min(2*pause, 30*time.Second)
		g.restart(m)
	}
}

// restart starts m again unless it was stopped meanwhile; a failed start
// leaves the exited process in place for the next round.
func (g *Group) restart(m *member) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.stopping {
		return
	}
	if p, err := Start(g.LogDir, m.name, m.bin, m.args, m.env...); err == nil {
		m.current = p
	}
}

// Healthy returns a process that has died (in a group that does not
// restart) or keeps dying (in one that does), if any.
func (g *Group) Healthy() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.members {
		if g.Restart {
			if m.crashLoop != nil {
				return m.crashLoop
			}
			continue
		}
		if err := m.current.Exited(); err != nil {
			return err
		}
	}
	return nil
}

// PID is the named process's current process ID, 0 if there is none.
func (g *Group) PID(name string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.members {
		if m.name == name && m.current.Exited() == nil {
			return m.current.PID()
		}
	}
	return 0
}

// Stop stops the named processes, or all when none are named, newest
// first; stopped ones are not restarted.
func (g *Group) Stop(grace time.Duration, names ...string) error {
	g.mu.Lock()
	var procs []*Process
	for i := len(g.members) - 1; i >= 0; i-- {
		if m := g.members[i]; len(names) == 0 || slices.Contains(names, m.name) {
			m.stopping = true
			procs = append(procs, m.current)
		}
	}
	g.mu.Unlock()
	var errs []error
	for _, p := range procs {
		errs = append(errs, p.Stop(grace))
	}
	return errors.Join(errs...)
}

// note appends a line of virtflow's own to a process's log, so that the
// log shows why the process started again.
func note(log, line string) {
	f, err := os.OpenFile(filepath.Clean(log), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
