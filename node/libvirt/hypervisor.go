// Package libvirt is virtflow's narrow view of libvirt: define, start,
// pause, resume, stop and watch domains and read their serial consoles.
// Callers depend on the Hypervisor interface; Connect gives the real
// implementation (libvirt.org/go/libvirt). Unit tests use the in-memory one
// in node/libvirt/libvirtfake, which no binary links.
package libvirt

import (
	"context"
	"errors"
	"io"
)

// State is a domain's run state, as libvirt reports it.
type State string

// Domain states virtflow distinguishes.
const (
	Running  State = "Running"
	Paused   State = "Paused"
	Shutdown State = "Shutdown" // shutting down
	Shutoff  State = "Shutoff"
	Crashed  State = "Crashed"
	NoState  State = "NoState"
)

// ErrNotFound is returned for a domain libvirt does not know.
var ErrNotFound = errors.New("domain not found")

// DomainInfo is what a lookup returns.
type DomainInfo struct {
	Name  string
	UUID  string
	State State
	// Reason is libvirt's reason for the state, e.g. "shutdown" or "crashed".
	Reason string
}

// Hypervisor manages domains on one libvirt connection.
type Hypervisor interface {
	// Create defines and starts a transient domain from XML. With paused,
	// it starts paused so a console can attach before the first byte.
	Create(ctx context.Context, xml string, paused bool) (DomainInfo, error)
	// Lookup returns the domain's current state.
	Lookup(ctx context.Context, name string) (DomainInfo, error)
	// List returns every domain on the connection.
	List(ctx context.Context) ([]DomainInfo, error)
	// Pause suspends the domain's vCPUs.
	Pause(ctx context.Context, name string) error
	// Resume continues a paused domain.
	Resume(ctx context.Context, name string) error
	// Shutdown asks the guest to power off (ACPI).
	Shutdown(ctx context.Context, name string) error
	// Destroy stops the domain immediately.
	Destroy(ctx context.Context, name string) error
	// AgentConnected says whether the guest agent has opened its channel.
	AgentConnected(ctx context.Context, name string) (bool, error)
	// GuestInfo asks the guest agent about the guest's OS, host name and
	// time zone; ErrNoAgent when none is connected.
	GuestInfo(ctx context.Context, name string) (GuestInfo, error)
	// Reboot restarts the guest from inside (agent, else ACPI).
	Reboot(ctx context.Context, name string) error
	// Reset restarts the guest at once, like a reset button.
	Reset(ctx context.Context, name string) error
	// FSFreeze freezes the guest's filesystems through its agent.
	FSFreeze(ctx context.Context, name string) error
	// FSThaw thaws them.
	FSThaw(ctx context.Context, name string) error
	// Console opens the domain's serial console.
	Console(ctx context.Context, name string) (io.ReadWriteCloser, error)
	// Migrate moves the running domain live to another libvirt daemon
	// and returns once the target runs it (the source's copy is gone) or
	// the migration failed.
	Migrate(ctx context.Context, name string, o MigrateOptions) error
	// MigrationProgress reports the domain's running job, a migration.
	MigrationProgress(ctx context.Context, name string) (JobProgress, error)
	// AbortJob cancels the domain's running job; an aborted migration
	// leaves the domain running where it was.
	AbortJob(ctx context.Context, name string) error
	// StartPostCopy switches the domain's running migration, started with
	// post-copy allowed, to post-copy: the guest runs on the target from
	// then on, fetching the pages it still lacks.
	StartPostCopy(ctx context.Context, name string) error
	// Screenshot captures the domain's primary display as PNG.
	Screenshot(ctx context.Context, name string) ([]byte, error)
	// Close releases the connection.
	Close() error
}
