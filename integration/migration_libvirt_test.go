//go:build integration

package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/migrationproxy"
)

// TestATestGuestMovesLiveBetweenTwoSessionDaemons: the mechanism a
// migration stands on, on this host. Two launchers' session-mode libvirt
// daemons as the launchers' unprivileged user; the source migrates the
// running test guest peer to peer, its memory over a unix socket; the
// guest runs on the target with what it held in memory, and is gone from
// the source.
func TestATestGuestMovesLiveBetweenTwoSessionDaemons(t *testing.T) {
	ctx := context.Background()
	store := imageStore(t)
	vmi := testGuestVMI("mig")
	vmi.UID = uuid.NewUUID() // libvirt needs the domain's UUID
	cfgs := make([]launcher.Config, 2)
	daemons := make([]*launcher.Daemon, 2)
	for i, side := range []string{"source", "target"} {
		dir := filepath.Join(env.dir, "migration", side)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, chmodTree(env.dir))
		require.NoError(t, os.Chown(dir, 65534, 65534)) // as a launcher hands its directory to its user
		cfgs[i] = launcher.Config{VMI: *vmi, Dir: dir, DomainType: domain.TCG, UID: 65534, GID: 65534,
			CacheDir: filepath.Join(env.dir, "libvirt-cache"), ImageStore: store}
		var err error
		daemons[i], err = launcher.StartDaemon(ctx, cfgs[i])
		require.NoError(t, err)
		defer daemons[i].Stop()
		t.Cleanup(func() { _ = os.RemoveAll(launcher.RuntimeDirFor(dir)) })
	}
	xml, err := launcher.DomainXML(ctx, cfgs[0])
	require.NoError(t, err)
	// The target's own disks: its overlay on the same container disk,
	// which the writes the guest made are copied into.
	targetXML, err := launcher.DomainXML(ctx, cfgs[1])
	require.NoError(t, err)
	src, err := libvirt.Connect(daemons[0].URI())
	require.NoError(t, err)
	defer src.Close()
	dst, err := libvirt.Connect(daemons[1].URI())
	require.NoError(t, err)
	defer dst.Close()
	_, err = src.Create(ctx, xml, false)
	require.NoError(t, err)
	name := domain.Name(&cfgs[0].VMI)
	defer func() { _ = src.Destroy(ctx, name); _ = dst.Destroy(ctx, name) }()
	waitForText(t, filepath.Join(cfgs[0].Dir, launcher.SerialLog), guestReady, 3*time.Minute)
	before, err := src.Console(ctx, name)
	require.NoError(t, err)
	// A mark in the guest's memory (its root is RAM): a rebooted guest
	// would not have it.
	require.True(t, guestSays(before, "echo MARK-$((40+2)) > /tmp/mark; echo WROTE-$((1+1))", "WROTE-2", time.Minute))
	before.Close()

	sockets := filepath.Join(env.dir, "migration", "proxy")
	require.NoError(t, os.MkdirAll(sockets, 0o755))
	require.NoError(t, os.Chown(sockets, 65534, 65534))
	start := time.Now()
	require.NoError(t, src.Migrate(ctx, name, libvirt.MigrateOptions{DestURI: daemons[1].URI(), DestXML: targetXML,
		MemoryURI: "unix://" + migrationproxy.SocketPath(sockets, "mig", migrationproxy.MemoryStream),
		Disks:     []string{"vda"}, DisksURI: "unix://" + migrationproxy.SocketPath(sockets, "mig", migrationproxy.BlockStream)}))
	t.Logf("migrated in %s", time.Since(start))

	got, err := dst.Lookup(ctx, name)
	require.NoError(t, err)
	require.Equal(t, libvirt.Running, got.State, "the guest runs on the target")
	_, err = src.Lookup(ctx, name)
	require.ErrorIs(t, err, libvirt.ErrNotFound, "and is gone from the source")
	console, err := dst.Console(ctx, name)
	require.NoError(t, err)
	defer console.Close()
	require.True(t, guestSays(console, "cat /tmp/mark", "MARK-42", time.Minute), "the guest answers on the target with its memory: no reboot")
}
