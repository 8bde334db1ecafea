package libvirt

import (
	"context"
	"fmt"
	"image"
	"io"
	"sync"

	"libvirt.org/go/libvirtxml"
)

// Fake is an in-memory Hypervisor for unit tests. Its console echoes what
// is written to it and replays ConsoleOutput first.
type Fake struct {
	mu      sync.Mutex
	domains map[string]*DomainInfo
	// ConsoleOutput is what a new console connection reads first.
	ConsoleOutput string
	// CreateErr, when set, fails every Create.
	CreateErr error
	// Agents holds what the guest agent of a domain reports; a domain
	// without an entry runs no agent.
	Agents map[string]GuestInfo
	// Screens holds what a domain's display shows; a domain without an
	// entry shows a default frame.
	Screens map[string]image.Image
}

// NewFake returns an empty fake hypervisor.
func NewFake() *Fake { return &Fake{domains: map[string]*DomainInfo{}} }

// Create parses the XML, as libvirt would, and records a running domain.
func (f *Fake) Create(_ context.Context, xml string, paused bool) (DomainInfo, error) {
	if f.CreateErr != nil {
		return DomainInfo{}, f.CreateErr
	}
	dom := &libvirtxml.Domain{}
	if err := dom.Unmarshal(xml); err != nil {
		return DomainInfo{}, fmt.Errorf("parsing domain XML: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.domains[dom.Name]; ok && d.State != Shutoff {
		return DomainInfo{}, fmt.Errorf("domain %s already exists and is %s", dom.Name, d.State)
	}
	st := Running
	if paused {
		st = Paused
	}
	info := &DomainInfo{Name: dom.Name, UUID: dom.UUID, State: st}
	f.domains[dom.Name] = info
	return *info, nil
}

// Lookup returns the recorded state.
func (f *Fake) Lookup(_ context.Context, name string) (DomainInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.domains[name]
	if !ok {
		return DomainInfo{}, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return *d, nil
}

// List returns every recorded domain.
func (f *Fake) List(context.Context) ([]DomainInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]DomainInfo, 0, len(f.domains))
	for _, d := range f.domains {
		out = append(out, *d)
	}
	return out, nil
}

func (f *Fake) transition(name string, from []State, to State, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.domains[name]
	if !ok {
		return fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	for _, s := range from {
		if d.State == s {
			d.State, d.Reason = to, reason
			if to == Shutoff {
				delete(f.domains, name)
			}
			return nil
		}
	}
	return fmt.Errorf("domain %s is %s, cannot move to %s", name, d.State, to)
}

// Pause moves Running to Paused.
func (f *Fake) Pause(_ context.Context, name string) error {
	return f.transition(name, []State{Running}, Paused, "user")
}

// Resume moves Paused to Running.
func (f *Fake) Resume(_ context.Context, name string) error {
	return f.transition(name, []State{Paused}, Running, "unpaused")
}

// Shutdown powers the domain off as a cooperative guest would.
func (f *Fake) Shutdown(_ context.Context, name string) error {
	return f.transition(name, []State{Running}, Shutoff, "shutdown")
}

// Destroy removes the domain whatever its state.
func (f *Fake) Destroy(_ context.Context, name string) error {
	return f.transition(name, []State{Running, Paused, Shutdown, Crashed}, Shutoff, "destroyed")
}

// Console returns a loopback stream primed with ConsoleOutput.
func (f *Fake) Console(_ context.Context, name string) (io.ReadWriteCloser, error) {
	if _, err := f.Lookup(context.Background(), name); err != nil {
		return nil, err
	}
	r, w := io.Pipe()
	go func() { _, _ = w.Write([]byte(f.ConsoleOutput)) }()
	return &pipeConsole{r: r, w: w}, nil
}

// AgentConnected is true for domains with an entry in Agents.
func (f *Fake) AgentConnected(ctx context.Context, name string) (bool, error) {
	if _, err := f.Lookup(ctx, name); err != nil {
		return false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.Agents[name]
	return ok, nil
}

// GuestInfo returns the domain's entry in Agents, or ErrNoAgent.
func (f *Fake) GuestInfo(ctx context.Context, name string) (GuestInfo, error) {
	if _, err := f.Lookup(ctx, name); err != nil {
		return GuestInfo{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	gi, ok := f.Agents[name]
	if !ok {
		return GuestInfo{}, fmt.Errorf("%s: %w", name, ErrNoAgent)
	}
	return gi, nil
}

// Reboot needs a running domain; a fake guest has nothing to restart.
func (f *Fake) Reboot(ctx context.Context, name string) error { return f.running(ctx, name) }

// Reset needs a running domain.
func (f *Fake) Reset(ctx context.Context, name string) error { return f.running(ctx, name) }

// FSFreeze needs a running domain with an agent.
func (f *Fake) FSFreeze(ctx context.Context, name string) error {
	_, err := f.GuestInfo(ctx, name)
	return err
}

// FSThaw needs a running domain with an agent.
func (f *Fake) FSThaw(ctx context.Context, name string) error {
	_, err := f.GuestInfo(ctx, name)
	return err
}

func (f *Fake) running(ctx context.Context, name string) error {
	d, err := f.Lookup(ctx, name)
	if err != nil {
		return err
	}
	if d.State != Running {
		return fmt.Errorf("domain %s is not running", name)
	}
	return nil
}

// Close does nothing.
func (f *Fake) Close() error { return nil }

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
