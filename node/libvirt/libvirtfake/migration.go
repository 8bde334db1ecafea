package libvirtfake

import (
	"context"
	"fmt"

	"github.com/virtflow/virtflow/node/libvirt"
)

// Migrate moves a running domain to the peer registered under the
// options' DestURI, as a finished migration would: it runs there and is
// gone here. MigrateErr, when set, fails it and leaves the domain here.
func (f *Hypervisor) Migrate(_ context.Context, name string, o libvirt.MigrateOptions) error {
	f.mu.Lock()
	d, ok := f.domains[name]
	peer := f.Peers[o.DestURI]
	migErr := f.MigrateErr
	f.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("%s: %w", name, libvirt.ErrNotFound)
	case d.State != libvirt.Running && d.State != libvirt.Paused:
		return fmt.Errorf("domain %s is %s, it cannot migrate", name, d.State)
	case migErr != nil:
		return migErr
	case peer == nil:
		return fmt.Errorf("migrating domain %s: no libvirt daemon at %s", name, o.DestURI)
	}
	moved := *d
	peer.mu.Lock()
	peer.domains[name] = &moved
	peer.mu.Unlock()
	f.mu.Lock()
	delete(f.domains, name)
	f.Migrations = append(f.Migrations, o)
	returning := f.Returning
	f.mu.Unlock()
	if returning != nil {
		<-returning
	}
	return nil
}

// MigrationProgress returns Progress for a domain it knows.
func (f *Hypervisor) MigrationProgress(ctx context.Context, name string) (libvirt.JobProgress, error) {
	if _, err := f.Lookup(ctx, name); err != nil {
		return libvirt.JobProgress{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Progress, nil
}

// StartPostCopy records the switch; the fake moves a domain at once, so
// the domain may already be gone.
func (f *Hypervisor) StartPostCopy(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.PostCopied = append(f.PostCopied, name)
	return nil
}

// AbortJob records the abort of a domain it knows.
func (f *Hypervisor) AbortJob(ctx context.Context, name string) error {
	if _, err := f.Lookup(ctx, name); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Aborted = append(f.Aborted, name)
	return nil
}
