package launcher

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/libvirtfake"
)

func migratingLauncher(t *testing.T) (*launcher, *libvirtfake.Hypervisor, *Client) {
	src, dst := libvirtfake.New(), libvirtfake.New()
	src.Peers = map[string]*libvirtfake.Hypervisor{"qemu+unix:///session?socket=/target.sock": dst}
	_, err := src.Create(context.Background(), `<domain type="qemu"><name>ns_vm</name></domain>`, false)
	require.NoError(t, err)
	l := &launcher{cfg: Config{Dir: t.TempDir()}, hv: src, name: "ns_vm"}
	socket := filepath.Join(t.TempDir(), SocketFile)
	srv, err := serve(socket, l)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	return l, dst, NewClientAt(socket)
}

func waitMigration(t *testing.T, c *Client, phase string) MigrationStatus {
	var st MigrationStatus
	require.Eventually(t, func() bool {
		var err error
		st, err = c.Migration(context.Background())
		return err == nil && st.Phase == phase
	}, 5*time.Second, 10*time.Millisecond)
	return st
}

// The domain moves once; the launcher then says it left by migrating, not
// that its guest stopped.
func TestTheLauncherMigratesItsDomainOnceAndSaysSo(t *testing.T) {
	l, dst, c := migratingLauncher(t)
	ctx := context.Background()
	st, err := c.Migration(ctx)
	require.NoError(t, err)
	require.Empty(t, st.Phase)
	require.ErrorContains(t, c.Send(ctx, "migrate", []byte(`{}`)), "with the target's URI")
	require.ErrorContains(t, c.Send(ctx, "migrate", []byte(`{"DestURI":"qemu+unix:///session?socket=/t.sock"}`)), "needs its ID")
	require.ErrorContains(t, c.Command(ctx, "migrate-abort"), "no migration of this domain is running")

	require.NoError(t, c.Migrate(ctx, "m-1", libvirt.MigrateOptions{DestURI: "qemu+unix:///session?socket=/target.sock"}))
	st = waitMigration(t, c, MigrationSucceeded)
	require.False(t, st.Ended.Before(st.Started))
	require.Equal(t, "m-1", st.ID, "the status names the migration it is of")
	_, err = dst.Lookup(ctx, "ns_vm")
	require.NoError(t, err, "the domain runs on the target")
	require.ErrorContains(t, c.Migrate(ctx, "m-1", libvirt.MigrateOptions{DestURI: "qemu+unix:///session?socket=/target.sock"}), "already migrated")

	require.NoError(t, l.watch(ctx))
	final, err := ReadStatus(l.cfg.Dir)
	require.NoError(t, err)
	require.True(t, final.Exited)
	require.Equal(t, ReasonMigrated, final.Reason)
}

func TestAFailedMigrationIsReportedAndTheDomainStays(t *testing.T) {
	l, _, c := migratingLauncher(t)
	ctx := context.Background()
	l.hv.(*libvirtfake.Hypervisor).MigrateErr = errors.New("Unsafe migration: Migration without shared storage is unsafe")
	require.NoError(t, c.Migrate(ctx, "m-1", libvirt.MigrateOptions{DestURI: "qemu+unix:///session?socket=/target.sock"}))
	st := waitMigration(t, c, MigrationFailed)
	require.Equal(t, "Unsafe migration: Migration without shared storage is unsafe", st.Message)
	info, err := l.hv.Lookup(ctx, "ns_vm")
	require.NoError(t, err)
	require.Equal(t, libvirt.Running, info.State)
}

// A migration target reports the incoming migration, not an exited
// domain, until the domain runs here; then it is an ordinary launcher.
func TestAMigrationTargetWaitsForItsDomain(t *testing.T) {
	hv := libvirtfake.New()
	l := &launcher{cfg: Config{Dir: t.TempDir()}, hv: hv, name: "ns_vm"}
	l.incoming.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := l.status(ctx)
	require.False(t, st.Exited)
	require.Equal(t, ReasonIncoming, st.Reason)
	arrived := make(chan bool, 1)
	go func() { arrived <- l.awaitIncoming(ctx) }()
	_, err := hv.Create(ctx, `<domain type="qemu"><name>ns_vm</name></domain>`, true)
	require.NoError(t, err)
	require.Equal(t, ReasonIncoming, l.status(ctx).Reason, "paused for the incoming stream: not here yet")
	require.NoError(t, hv.Resume(ctx, "ns_vm"))
	require.True(t, <-arrived)
	require.Equal(t, libvirt.Running, l.status(ctx).State)

	other := &launcher{cfg: Config{Dir: t.TempDir()}, hv: libvirtfake.New(), name: "ns_other"}
	other.incoming.Store(true)
	cancel()
	require.False(t, other.awaitIncoming(ctx), "a target deleted before its domain came")
}

// libvirt's migrate call returns after the domain left the source: in
// between, the launcher must not take the gone domain for a guest that
// ended (the VMI would end, and its controller remove the migrated guest).
func TestADomainGoneBeforeTheMigrationReturnedIsNotTakenForAnEnd(t *testing.T) {
	l, _, c := migratingLauncher(t)
	ctx := context.Background()
	src := l.hv.(*libvirtfake.Hypervisor)
	src.Returning = make(chan struct{})
	watched := make(chan error, 1)
	go func() { watched <- l.watch(ctx) }()
	require.NoError(t, c.Migrate(ctx, "m-1", libvirt.MigrateOptions{DestURI: "qemu+unix:///session?socket=/target.sock"}))
	require.Eventually(t, func() bool { _, err := src.Lookup(ctx, "ns_vm"); return err != nil }, 5*time.Second, 10*time.Millisecond)
	select {
	case <-watched:
		t.Fatal("the launcher concluded before its migration returned")
	case <-time.After(time.Second):
	}
	close(src.Returning)
	require.NoError(t, <-watched)
	final, err := ReadStatus(l.cfg.Dir)
	require.NoError(t, err)
	require.Equal(t, ReasonMigrated, final.Reason)
}

func TestARunningMigrationSwitchesToPostCopyOnRequest(t *testing.T) {
	l, _, c := migratingLauncher(t)
	ctx := context.Background()
	require.ErrorContains(t, c.Command(ctx, "migrate-postcopy"), "no migration of this domain is running")
	src := l.hv.(*libvirtfake.Hypervisor)
	src.Returning = make(chan struct{})
	defer close(src.Returning)
	require.NoError(t, c.Migrate(ctx, "m-1", libvirt.MigrateOptions{DestURI: "qemu+unix:///session?socket=/target.sock", PostCopy: true}))
	require.NoError(t, c.Command(ctx, "migrate-postcopy"))
	require.Equal(t, []string{"ns_vm"}, src.PostCopied)
}
