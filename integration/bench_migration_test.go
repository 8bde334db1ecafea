//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/migrationproxy"
)

// migrationTimes is one live migration as measured from outside (wall)
// and as libvirt's completed job on the target reports it.
type migrationTimes struct {
	wall, elapsed, downtime time.Duration
}

// TestBenchMigration measures live migration on `virtflow up --nodes 2`
// against a bare `virsh migrate` of the same guest in the same run, a
// guest dirtying memory with and without auto-converge, and the drain of a
// node running several VMs.
func TestBenchMigration(t *testing.T) {
	bare := bareMigration(t)
	t.Logf("bare virsh migrate: %s wall, %s job, %s downtime", bare.wall, bare.elapsed, bare.downtime)
	u, err := newUpRun("/var/tmp/virtflow-mig-bench")
	require.NoError(t, err)
	t.Cleanup(func() { _ = u.stop(); require.NoError(t, u.purge()) })
	u.args = append(u.args, "--nodes", "2")
	require.NoError(t, u.start())
	ns := u.namespace(t)
	idle := u.idleMigration(t, ns)
	const note = "baseline: bare virsh migrate --live --p2p --copy-storage-inc of the same guest between two session libvirt daemons on this host, unix sockets without the node agents' TLS proxy"
	rows := []benchRow{
		{name: "idle VM live migration: VMIM created → Succeeded", ours: idle.wall, baseline: bare.wall, note: note + " (virsh's wall time)"},
		{name: "idle VM live migration: libvirt's job time", ours: idle.elapsed, baseline: bare.elapsed, note: "the target's completed job, both sides"},
		{name: "idle VM live migration: downtime", ours: idle.downtime, baseline: bare.downtime, note: "the target's completed job (Total downtime), both sides"},
	}
	rows = append(rows, u.dirtyRows(t, ns)...)
	rows = append(rows, u.drainRow(t, ns, envInt("BENCH_DRAIN_VMS", 10), idle.wall))
	printTable(rows)
}

// idleMigration moves an idle test guest from the first node to the
// second with a VirtualMachineInstanceMigration.
func (u *upRun) idleMigration(t *testing.T, ns string) migrationTimes {
	ctx := context.Background()
	u.cordon(t, "virtflow-node-2")
	vm := testGuestVM("idle", kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	require.NoError(t, u.c.Create(ctx, vm))
	defer deleteVM(t, u.c, vm)
	key := crclient.ObjectKeyFromObject(vm)
	runningVMI(t, u.c, key)
	require.Eventually(t, func() bool { return liveMigratable(u.c, key) }, time.Minute, time.Second)
	require.Eventually(t, func() bool { return strings.Contains(serialLogOn(t, u, key, "virtflow-node-1"), guestReady) },
		3*time.Minute, 200*time.Millisecond, "the guest never booted")
	u.uncordon(t, "virtflow-node-2")

	mig := &kubevirtv1.VirtualMachineInstanceMigration{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "idle"},
		Spec: kubevirtv1.VirtualMachineInstanceMigrationSpec{VMIName: vm.Name}}
	start := time.Now()
	require.NoError(t, u.c.Create(ctx, mig))
	require.Eventually(t, func() bool {
		return u.c.Get(ctx, crclient.ObjectKeyFromObject(mig), mig) == nil && mig.IsFinal()
	}, 5*time.Minute, 20*time.Millisecond)
	m := migrationTimes{wall: time.Since(start)}
	require.Equal(t, kubevirtv1.MigrationSucceeded, mig.Status.Phase)
	target := launcherOn(t, u, key, "virtflow-node-2")
	out, err := u.kubectl("-n", ns, "exec", target.Name, "-c", "compute", "--", "virsh", "-c", launcherLibvirt,
		"domjobinfo", "--completed", ns+"_"+vm.Name).CombinedOutput()
	require.NoError(t, err, "%s", out)
	m.elapsed, m.downtime = jobTimes(t, string(out))
	return m
}

// bareMigration starts two session libvirt daemons on this host as the
// launchers' user, boots the guest on the first and moves it to the
// second with virsh alone: no launcher, no node agent, no proxy.
func bareMigration(t *testing.T) migrationTimes {
	ctx := context.Background()
	vmi := testGuestVMI("bare")
	vmi.UID = uuid.NewUUID()
	var cfgs [2]launcher.Config
	var uris [2]string
	for i, side := range []string{"bench-source", "bench-target"} {
		cfgs[i] = migrationLauncher(t, side, vmi, i == 1)
		// The launcher's user writes there, as the node agent arranges.
		for _, d := range []string{cfgs[i].Dir, launcher.RuntimeDirFor(cfgs[i].Dir)} {
			require.NoError(t, os.MkdirAll(d, 0o755))
			require.NoError(t, os.Chown(d, cfgs[i].UID, cfgs[i].GID))
		}
		daemon, err := launcher.StartDaemon(ctx, cfgs[i])
		require.NoError(t, err)
		t.Cleanup(daemon.Stop)
		uris[i] = daemon.URI()
	}
	name := domain.Name(vmi)
	src, err := launcher.DomainXML(ctx, cfgs[0])
	require.NoError(t, err)
	hv, err := libvirt.Connect(uris[0])
	require.NoError(t, err)
	defer hv.Close()
	_, err = hv.Create(ctx, src, false)
	require.NoError(t, err)
	waitForText(t, filepath.Join(cfgs[0].Dir, launcher.SerialLog), guestReady, 3*time.Minute)
	home := filepath.Join(env.dir, "bench-virsh")
	require.NoError(t, os.MkdirAll(home, 0o700))
	require.NoError(t, os.Chown(home, 65534, 65534))
	target, err := launcher.DomainXML(ctx, cfgs[1])
	require.NoError(t, err)
	xmlFile := filepath.Join(home, "target.xml")
	require.NoError(t, os.WriteFile(xmlFile, []byte(target), 0o644))
	// Short: QEMU's unix socket paths are limited to 108 bytes.
	sockets, err := os.MkdirTemp("/tmp", "vfm")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(sockets) })
	require.NoError(t, os.Chmod(sockets, 0o755))
	require.NoError(t, os.Chown(sockets, 65534, 65534))
	start := time.Now()
	out, err := virshAs(home, "-c", uris[0], "migrate", "--live", "--p2p", "--copy-storage-inc", "--migrate-disks", "vda",
		"--disks-uri", "unix://"+migrationproxy.SocketPath(sockets, string(vmi.UID), migrationproxy.BlockStream),
		"--migrateuri", "unix://"+migrationproxy.SocketPath(sockets, string(vmi.UID), migrationproxy.MemoryStream),
		"--xml", xmlFile, name, uris[1]).CombinedOutput()
	m := migrationTimes{wall: time.Since(start)}
	require.NoError(t, err, "%s", out)
	defer func() { _ = virshAs(home, "-c", uris[1], "destroy", name).Run() }()
	out, err = virshAs(home, "-c", uris[1], "domjobinfo", "--completed", name).CombinedOutput()
	require.NoError(t, err, "%s", out)
	m.elapsed, m.downtime = jobTimes(t, string(out))
	return m
}

// virshAs runs virsh as the launchers' user, whose session daemons these
// are.
func virshAs(home string, args ...string) *exec.Cmd {
	cmd := exec.Command("virsh", args...)
	cmd.Env = []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + home, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd
}

// jobTimes reads the elapsed time and downtime of `virsh domjobinfo
// --completed`.
func jobTimes(t *testing.T, out string) (elapsed, downtime time.Duration) {
	ms := func(label string) time.Duration {
		m := regexp.MustCompile(label + `:\s+(\d+)\s+ms`).FindStringSubmatch(out)
		require.NotNil(t, m, "no %s in %s", label, out)
		v, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		return time.Duration(v) * time.Millisecond
	}
	return ms("Time elapsed"), ms("Total downtime")
}

// drainRow drains the first node, as a whole (the platform's pods on it
// move too), of count VMs with evictionStrategy LiveMigrate and times
// `kubectl drain` until it completes.
func (u *upRun) drainRow(t *testing.T, ns string, count int, one time.Duration) benchRow {
	ctx := context.Background()
	u.cordon(t, "virtflow-node-2")
	var vms []*kubevirtv1.VirtualMachine
	for i := 0; i < count; i++ {
		vm := testGuestVM(fmt.Sprintf("drained-%d", i), kubevirtv1.RunStrategyAlways)
		vm.Namespace = ns
		strategy := kubevirtv1.EvictionStrategyLiveMigrate
		vm.Spec.Template.Spec.EvictionStrategy = &strategy
		require.NoError(t, u.c.Create(ctx, vm))
		vms = append(vms, vm)
	}
	defer deleteVM(t, u.c, vms...)
	for _, vm := range vms {
		key := crclient.ObjectKeyFromObject(vm)
		require.Equal(t, "virtflow-node-1", runningVMI(t, u.c, key).Status.NodeName)
		require.Eventually(t, func() bool { return liveMigratable(u.c, key) }, 2*time.Minute, time.Second)
	}
	u.uncordon(t, "virtflow-node-2")
	defer u.uncordon(t, "virtflow-node-1")
	start := time.Now()
	out, err := u.kubectl("drain", "virtflow-node-1", "--ignore-daemonsets", "--delete-emptydir-data",
		"--timeout", "20m").CombinedOutput()
	took := time.Since(start)
	require.NoError(t, err, "%s", out)
	for _, vm := range vms {
		v := &kubevirtv1.VirtualMachineInstance{}
		require.NoError(t, u.c.Get(ctx, crclient.ObjectKeyFromObject(vm), v))
		require.Equal(t, "virtflow-node-2", v.Status.NodeName, "%s moved", vm.Name)
		require.Equal(t, kubevirtv1.Running, v.Status.Phase)
	}
	return benchRow{name: fmt.Sprintf("drain of a whole node (platform pods too) running %d LiveMigrate VMs → kubectl drain done", count), ours: took, baseline: one,
		note: "baseline: one idle VM's migration, VMIM created → Succeeded, same run (2 outbound migrations per node at a time)"}
}

func (u *upRun) cordon(t *testing.T, node string) {
	out, err := u.kubectl("cordon", node).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

func (u *upRun) uncordon(t *testing.T, node string) {
	out, err := u.kubectl("uncordon", node).CombinedOutput()
	require.NoError(t, err, "%s", out)
}
