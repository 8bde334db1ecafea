// Package libvirtfake holds an in-memory libvirt.Hypervisor for unit tests.
// It is test support only: no binary imports it, and layout's
// TestTestSupportStaysOutOfBinaries fails if one does.
package libvirtfake

import (
	"context"
	"fmt"
	"image"
	"io"
	"sync"

	"libvirt.org/go/libvirtxml"

	"github.com/virtflow/virtflow/node/libvirt"
)

var _ libvirt.Hypervisor = (*Hypervisor)(nil)

// Hypervisor is an in-memory libvirt.Hypervisor for unit tests. Its
// console echoes what is written to it and replays ConsoleOutput first.
type Hypervisor struct {
	mu      sync.Mutex
	domains map[string]*libvirt.DomainInfo
	// ConsoleOutput is what a new console connection reads first.
	ConsoleOutput string
	// CreateErr, when set, fails every Create.
	CreateErr error
	// Agents holds what the guest agent of a domain reports; a domain
	// without an entry runs no agent.
	Agents map[string]libvirt.GuestInfo
	// Screens holds what a domain's display shows; a domain without an
	// entry shows a default frame.
	Screens map[string]image.Image
	// Peers are the daemons a domain can migrate to, by URI.
	Peers map[string]*Hypervisor
	// MigrateErr, when set, fails every migration.
	MigrateErr error
	// Returning, when set, holds a migration's return after the domain
	// left until it is closed, as libvirt's call returns after the
	// source's domain is gone.
	Returning chan struct{}
	// Progress is what MigrationProgress reports.
	Progress libvirt.JobProgress
	// Migrations and Aborted record the migrations done and the jobs
	// aborted.
	Migrations []libvirt.MigrateOptions
	Aborted    []string
	// PostCopied records the migrations switched to post-copy.
	PostCopied []string
}

// New returns an empty fake hypervisor.
func New() *Hypervisor { return &Hypervisor{domains: map[string]*libvirt.DomainInfo{}} }

// Create parses the XML, as libvirt would, and records a running domain.
func (f *Hypervisor) Create(_ context.Context, xml string, paused bool) (libvirt.DomainInfo, error) {
	if f.CreateErr != nil {
		return libvirt.DomainInfo{}, f.CreateErr
	}
	dom := &libvirtxml.Domain{}
	if err := dom.Unmarshal(xml); err != nil {
		return libvirt.DomainInfo{}, fmt.Errorf("parsing domain XML: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.domains[dom.Name]; ok && d.State != libvirt.Shutoff {
		return libvirt.DomainInfo{}, fmt.Errorf("domain %s already exists and is %s", dom.Name, d.State)
	}
	st := libvirt.Running
	if paused {
		st = libvirt.Paused
	}
	info := &libvirt.DomainInfo{Name: dom.Name, UUID: dom.UUID, State: st}
	f.domains[dom.Name] = info
	return *info, nil
}

// Lookup returns the recorded state.
func (f *Hypervisor) Lookup(_ context.Context, name string) (libvirt.DomainInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.domains[name]
	if !ok {
		return libvirt.DomainInfo{}, fmt.Errorf("%s: %w", name, libvirt.ErrNotFound)
	}
	return *d, nil
}

// List returns every recorded domain.
func (f *Hypervisor) List(context.Context) ([]libvirt.DomainInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]libvirt.DomainInfo, 0, len(f.domains))
	for _, d := range f.domains {
		out = append(out, *d)
	}
	return out, nil
}

func (f *Hypervisor) transition(name string, from []libvirt.State, to libvirt.State, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.domains[name]
	if !ok {
		return fmt.Errorf("%s: %w", name, libvirt.ErrNotFound)
	}
	for _, s := range from {
		if d.State == s {
			d.State, d.Reason = to, reason
			if to == libvirt.Shutoff {
				delete(f.domains, name)
			}
			return nil
		}
	}
	return fmt.Errorf("domain %s is %s, cannot move to %s", name, d.State, to)
}

// Pause moves Running to Paused.
func (f *Hypervisor) Pause(_ context.Context, name string) error {
	return f.transition(name, []libvirt.State{libvirt.Running}, libvirt.Paused, "user")
}

// Resume moves Paused to Running.
func (f *Hypervisor) Resume(_ context.Context, name string) error {
	return f.transition(name, []libvirt.State{libvirt.Paused}, libvirt.Running, "unpaused")
}

// Shutdown powers the domain off as a cooperative guest would.
func (f *Hypervisor) Shutdown(_ context.Context, name string) error {
	return f.transition(name, []libvirt.State{libvirt.Running}, libvirt.Shutoff, "shutdown")
}

// Destroy removes the domain whatever its state.
func (f *Hypervisor) Destroy(_ context.Context, name string) error {
	return f.transition(name, []libvirt.State{libvirt.Running, libvirt.Paused, libvirt.Shutdown, libvirt.Crashed}, libvirt.Shutoff, "destroyed")
}

// Console returns a loopback stream primed with ConsoleOutput.
func (f *Hypervisor) Console(_ context.Context, name string) (io.ReadWriteCloser, error) {
	if _, err := f.Lookup(context.Background(), name); err != nil {
		return nil, err
	}
	r, w := io.Pipe()
	go func() { _, _ = w.Write([]byte(f.ConsoleOutput)) }()
	return &pipeConsole{r: r, w: w}, nil
}

// AgentConnected is true for domains with an entry in Agents.
func (f *Hypervisor) AgentConnected(ctx context.Context, name string) (bool, error) {
	if _, err := f.Lookup(ctx, name); err != nil {
		return false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.Agents[name]
	return ok, nil
}

// GuestInfo returns the domain's entry in Agents, or libvirt.ErrNoAgent.
func (f *Hypervisor) GuestInfo(ctx context.Context, name string) (libvirt.GuestInfo, error) {
	if _, err := f.Lookup(ctx, name); err != nil {
		return libvirt.GuestInfo{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	gi, ok := f.Agents[name]
	if !ok {
		return libvirt.GuestInfo{}, fmt.Errorf("%s: %w", name, libvirt.ErrNoAgent)
	}
	return gi, nil
}

// Reboot needs a running domain; a fake guest has nothing to restart.
func (f *Hypervisor) Reboot(ctx context.Context, name string) error { return f.running(ctx, name) }

// Reset needs a running domain.
func (f *Hypervisor) Reset(ctx context.Context, name string) error { return f.running(ctx, name) }

// FSFreeze needs a running domain with an agent.
func (f *Hypervisor) FSFreeze(ctx context.Context, name string) error {
	_, err := f.GuestInfo(ctx, name)
	return err
}

// FSThaw needs a running domain with an agent.
func (f *Hypervisor) FSThaw(ctx context.Context, name string) error {
	_, err := f.GuestInfo(ctx, name)
	return err
}

func (f *Hypervisor) running(ctx context.Context, name string) error {
	d, err := f.Lookup(ctx, name)
	if err != nil {
		return err
	}
	if d.State != libvirt.Running {
		return fmt.Errorf("domain %s is not running", name)
	}
	return nil
}

// Close does nothing.
func (f *Hypervisor) Close() error { return nil }

type pipeConsole struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p *pipeConsole) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeConsole) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeConsole) Close() error {
	_ = p.w.Close()
	return p.r.Close()
}
