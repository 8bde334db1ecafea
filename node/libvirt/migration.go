package libvirt

import (
	"context"
	"time"

	golibvirt "libvirt.org/go/libvirt"
)

// MigrateOptions is one live migration of a domain, peer to peer, with
// libvirt and QEMU seeing only the URIs given here (unix sockets the node
// agents join across nodes).
type MigrateOptions struct {
	// DestURI is the target libvirt daemon, e.g.
	// "qemu+unix:///session?socket=/path/<uid>-source.sock".
	DestURI string
	// MemoryURI is where the source QEMU sends memory and the target QEMU
	// listens, e.g. "unix:///path/<uid>-49152-source.sock".
	MemoryURI string
	// DestXML is the domain as the target starts it; the source's when
	// empty.
	DestXML string
	// Disks are the targets (vda, ...) of the writable disks local to the
	// node, copied to the target's own images over DisksURI (block
	// migration: the target has the same backing images, so only what the
	// guest wrote moves).
	Disks    []string
	DisksURI string
	// BandwidthMiB caps the stream in MiB/s; unlimited when 0.
	BandwidthMiB uint64
	// AutoConverge throttles the guest's vCPUs when it dirties memory
	// faster than it moves.
	AutoConverge bool
	// PostCopy lets the migration switch to post-copy.
	PostCopy bool
}

// flags are upstream's, less PERSIST_DEST: virtflow's domains are
// transient on both sides, the launcher holding their definition.
func (o MigrateOptions) flags() golibvirt.DomainMigrateFlags {
	f := golibvirt.MIGRATE_LIVE | golibvirt.MIGRATE_PEER2PEER
	if o.AutoConverge {
		f |= golibvirt.MIGRATE_AUTO_CONVERGE
	}
	if o.PostCopy {
		f |= golibvirt.MIGRATE_POSTCOPY
	}
	if len(o.Disks) > 0 {
		f |= golibvirt.MIGRATE_NON_SHARED_INC
	}
	return f
}

func (o MigrateOptions) params() *golibvirt.DomainMigrateParameters {
	p := &golibvirt.DomainMigrateParameters{URISet: o.MemoryURI != "", URI: o.MemoryURI}
	if o.DestXML != "" {
		p.DestXMLSet, p.DestXML = true, o.DestXML
	}
	if len(o.Disks) > 0 {
		p.MigrateDisksSet, p.MigrateDisks = true, o.Disks
		p.DisksURISet, p.DisksURI = o.DisksURI != "", o.DisksURI
	}
	if o.BandwidthMiB > 0 {
		p.BandwidthSet, p.Bandwidth = true, o.BandwidthMiB
	}
	return p
}

// JobProgress is a running migration's counters, as libvirt's job stats
// report them.
type JobProgress struct {
	Active                                      bool
	Elapsed                                     time.Duration
	DataTotal, DataProcessed, DataRemaining     uint64
	MemoryDirtyRate, MemoryIteration, MemoryBps uint64
}

func (h *conn) Migrate(_ context.Context, name string, o MigrateOptions) error {
	return h.do(name, "migrating", func(d *golibvirt.Domain) error {
		return d.MigrateToURI3(o.DestURI, o.params(), o.flags())
	})
}

func (h *conn) MigrationProgress(_ context.Context, name string) (JobProgress, error) {
	var p JobProgress
	err := h.do(name, "reading the job of", func(d *golibvirt.Domain) error {
		st, err := d.GetJobStats(0)
		if err != nil {
			return err
		}
		p = JobProgress{Active: st.Type != golibvirt.DOMAIN_JOB_NONE, Elapsed: time.Duration(st.TimeElapsed) * time.Millisecond,
			DataTotal: st.DataTotal, DataProcessed: st.DataProcessed, DataRemaining: st.DataRemaining,
			MemoryDirtyRate: st.MemDirtyRate, MemoryIteration: st.MemIteration, MemoryBps: st.MemBps}
		return nil
	})
	return p, err
}

func (h *conn) StartPostCopy(_ context.Context, name string) error {
	return h.do(name, "switching to post-copy the migration of", func(d *golibvirt.Domain) error { return d.MigrateStartPostCopy(0) })
}

func (h *conn) AbortJob(_ context.Context, name string) error {
	return h.do(name, "aborting the job of", (*golibvirt.Domain).AbortJob)
}
