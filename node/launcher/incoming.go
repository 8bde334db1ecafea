package launcher

import (
	"context"
	"time"

	"github.com/virtflow/virtflow/node/libvirt"
)

// ReasonIncoming is a migration target's status reason until its domain
// runs here.
const ReasonIncoming = "incoming migration"

// ReasonMigrated is a source's final status reason: its domain left by
// migrating and runs on, on the target.
const ReasonMigrated = "migrated"

// awaitIncoming waits until the migrated domain runs here. The source's
// libvirt creates it paused for the incoming stream and resumes it once
// the source's copy has stopped; a migration that fails removes it, and
// the target waits on, until the node agent deletes it (ctx ends: false).
func (l *launcher) awaitIncoming(ctx context.Context) bool {
	logf("waiting for domain %s to arrive by live migration", l.name)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		if info, err := l.hv.Lookup(ctx, l.name); err == nil && info.State == libvirt.Running {
			l.incoming.Store(false)
			logf("domain %s arrived and runs here", l.name)
			return true
		}
	}
}
