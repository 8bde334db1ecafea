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
	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/migrationproxy"
)

// TestATestGuestMovesLiveBetweenTwoLaunchers: the mechanism a migration
// stands on, on this host. Two launchers as the launchers' unprivileged
// user, each with its session-mode libvirt daemon: the target waits for
// its domain, the source is told to migrate it peer to peer (memory and
// the guest's writes to its root disk over unix sockets). The guest runs
// on the target with what it held in memory, the source launcher ends
// saying its domain migrated, not that it stopped.
func TestATestGuestMovesLiveBetweenTwoLaunchers(t *testing.T) {
	ctx := context.Background()
	vmi := testGuestVMI("mig")
	vmi.UID = uuid.NewUUID() // libvirt needs the domain's UUID
	var cfgs [2]launcher.Config
	var done [2]chan error
	for i, side := range []string{"source", "target"} {
		cfgs[i] = migrationLauncher(t, side, vmi, i == 1)
		done[i] = runLauncher(t, cfgs[i])
	}
	name := domain.Name(vmi)
	waitForText(t, filepath.Join(cfgs[0].Dir, launcher.SerialLog), guestReady, 3*time.Minute)
	src, tgt := launcher.NewClient(cfgs[0].Dir), launcher.NewClient(cfgs[1].Dir)
	require.Eventually(t, func() bool {
		st, err := tgt.Status(ctx)
		return err == nil && st.Reason == launcher.ReasonIncoming && !st.Exited
	}, time.Minute, 100*time.Millisecond, "the target waits for its domain")
	console, err := src.Stream(ctx, launcher.ConsoleStream)
	require.NoError(t, err)
	// A mark in the guest's memory (its root is RAM): a rebooted guest
	// would not have it.
	require.True(t, guestSays(console, "echo MARK-$((40+2)) > /tmp/mark; echo WROTE-$((1+1))", "WROTE-2", time.Minute))
	console.Close()

	// Paths differ between the two launchers here, not between two pods.
	targetXML, err := launcher.DomainXML(ctx, cfgs[1])
	require.NoError(t, err)
	sockets := filepath.Join(env.dir, "migration", "proxy")
	require.NoError(t, os.MkdirAll(sockets, 0o755))
	require.NoError(t, os.Chown(sockets, 65534, 65534))
	require.NoError(t, src.Migrate(ctx, "m-1", libvirt.MigrateOptions{DestURI: cfgs[1].LibvirtURI(), DestXML: targetXML,
		MemoryURI: "unix://" + migrationproxy.SocketPath(sockets, string(vmi.UID), migrationproxy.MemoryStream),
		Disks:     []string{"vda"}, DisksURI: "unix://" + migrationproxy.SocketPath(sockets, string(vmi.UID), migrationproxy.BlockStream)}))
	start := time.Now()
	select {
	case err := <-done[0]:
		require.NoError(t, err, "the source launcher ends once its domain left")
	case <-time.After(3 * time.Minute):
		t.Fatal("the migration did not end")
	}
	done[0] <- nil // for runLauncher's cleanup
	t.Logf("migrated in %s", time.Since(start))
	final, err := launcher.ReadStatus(cfgs[0].Dir)
	require.NoError(t, err)
	require.Equal(t, launcher.ReasonMigrated, final.Reason)
	st, err := tgt.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, libvirt.Running, st.State)
	require.Equal(t, name, st.Domain)
	console, err = tgt.Stream(ctx, launcher.ConsoleStream)
	require.NoError(t, err)
	defer console.Close()
	require.True(t, guestSays(console, "cat /tmp/mark", "MARK-42", time.Minute), "the guest answers on the target with its memory: no reboot")
}

// migrationLauncher writes the configuration of one side's launcher.
func migrationLauncher(t *testing.T, side string, vmi *kubevirtv1.VirtualMachineInstance, target bool) launcher.Config {
	dir := filepath.Join(env.dir, "migration", side)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, chmodTree(env.dir))
	cfg := launcher.Config{VMI: *vmi, Dir: dir, DomainType: domain.TCG, UID: 65534, GID: 65534,
		CacheDir: filepath.Join(env.dir, "libvirt-cache"), ImageStore: imageStore(t), MigrationTarget: target}
	require.NoError(t, launcher.WriteConfig(cfg))
	t.Cleanup(func() { _ = os.RemoveAll(launcher.RuntimeDirFor(dir)) })
	return cfg
}

// runLauncher runs a launcher until the test ends.
func runLauncher(t *testing.T, cfg launcher.Config) chan error {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- launcher.Run(ctx, cfg.Dir) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("a launcher did not stop")
		}
	})
	return done
}
