//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/virtflow/virtflow/integration/procs"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/libvirt/domain"
)

// singleVM measures one VM at a time, create → domain running and
// create → boot marker on the serial console, against the same domain
// created directly on a warm session libvirtd. Run 0 of each side warms
// caches and is not counted.
func (b *bencher) singleVM(node handler.Config, runs int) []benchRow {
	ns := b.namespace("bench-single")
	var run, marker, bareRun, bareMarker []time.Duration
	for i := 0; i <= runs; i++ {
		r, m := b.oneVM(node, ns, fmt.Sprintf("single-%d", i))
		br, bm := b.bareDomain(b.bareNode(node), fmt.Sprintf("bare-%d", i))
		if i > 0 {
			run, marker = append(run, r), append(marker, m)
			bareRun, bareMarker = append(bareRun, br), append(bareMarker, bm)
		}
	}
	note := fmt.Sprintf("median of %d; baseline: the same domain created on a warm session libvirtd", runs)
	return []benchRow{
		{name: "VM create → domain running (qemu " + string(node.DomainType) + ")", ours: median(run), baseline: median(bareRun), note: note},
		{name: "VM create → boot marker on the serial console", ours: median(marker), baseline: median(bareMarker), note: note},
	}
}

func (b *bencher) oneVM(node handler.Config, ns, name string) (time.Duration, time.Duration) {
	ctx := context.Background()
	start := time.Now()
	require.NoError(b.t, b.client.Create(ctx, benchVM(ns, name, node.NodeName)))
	running := b.runningTimes(ns, 1, 3*time.Minute)[name].Sub(start)
	marker := waitMarker(b.t, b.serialLogOf(node, ns, name)).Sub(start)
	b.cleanup(ns)
	return running, marker
}

func (b *bencher) serialLogOf(node handler.Config, ns, name string) string {
	if b.serialLog != nil {
		return b.serialLog(ns, name)
	}
	logs, _ := filepath.Glob(filepath.Join(node.Dir, ns+"_virt-launcher-"+name+"-*", launcher.SerialLog))
	require.Len(b.t, logs, 1, "the launcher's serial log of %s", name)
	return logs[0]
}

// bareNode is where the baselines run their domains.
func (b *bencher) bareNode(node handler.Config) handler.Config {
	if b.bare != nil {
		return *b.bare
	}
	return node
}

// bareConfig prepares a directory the unprivileged qemu can use, as the node
// agent does for a launcher.
func (b *bencher) bareConfig(node handler.Config, name string) launcher.Config {
	dir := filepath.Join(env.dir, "bare", name)
	for _, d := range []string{dir, launcher.RuntimeDirFor(dir)} {
		require.NoError(b.t, os.MkdirAll(d, 0o755))
		require.NoError(b.t, os.Chown(d, node.UID, node.GID))
	}
	b.t.Cleanup(func() { _ = os.RemoveAll(launcher.RuntimeDirFor(dir)) })
	vmi := testGuestVMI(name)
	// Domains on one daemon need distinct UUIDs.
	vmi.UID = uuid.NewUUID()
	return launcher.Config{VMI: *vmi, Dir: dir, DomainType: node.DomainType, UID: node.UID, GID: node.GID,
		CacheDir: filepath.Join(env.dir, "bare-libvirt-cache"), ImageStore: node.ImageStore}
}

func (b *bencher) bareDomain(node handler.Config, name string) (time.Duration, time.Duration) {
	ctx := context.Background()
	cfg := b.bareConfig(node, name)
	daemon, err := launcher.StartDaemon(ctx, cfg)
	require.NoError(b.t, err)
	defer daemon.Stop()
	xml, err := launcher.DomainXML(ctx, cfg)
	require.NoError(b.t, err)
	hv, err := libvirt.Connect(daemon.URI())
	require.NoError(b.t, err)
	defer hv.Close()
	start := time.Now()
	_, err = hv.Create(ctx, xml, false)
	require.NoError(b.t, err)
	running := time.Since(start)
	marker := waitMarker(b.t, filepath.Join(cfg.Dir, launcher.SerialLog)).Sub(start)
	require.NoError(b.t, hv.Destroy(ctx, domain.Name(&cfg.VMI)))
	return running, marker
}

func waitMarker(t require.TestingT, path string) time.Time {
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), guestReady) {
			return time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.FailNow(t, "no boot marker", "%s never showed %s", path, guestReady)
	return time.Time{}
}

// massCreate creates n VMs at once on one node and waits for all to run;
// the baseline creates the same n domains at once on bare libvirt.
func (b *bencher) massCreate(node handler.Config, n int) benchRow {
	ns := b.namespace("bench-" + node.NodeName)
	created := make([]time.Time, n)
	start := time.Now()
	concurrently(n, 20, func(i int) {
		created[i] = time.Now()
		require.NoError(b.t, b.client.Create(context.Background(), benchVM(ns, fmt.Sprintf("vm-%03d", i), node.NodeName)))
	})
	running := b.runningTimes(ns, n, 15*time.Minute)
	var last time.Time
	lat := make([]time.Duration, n)
	for i := range n {
		at := running[fmt.Sprintf("vm-%03d", i)]
		lat[i] = at.Sub(created[i])
		if at.After(last) {
			last = at
		}
	}
	overhead := ""
	if b.serialLog == nil {
		overhead = fmt.Sprintf("launcher+libvirtd RSS beside qemu %.1f MiB/VM; ", nodeOverheadMiB(node.Dir, ns))
	}
	b.cleanup(ns)
	bare := b.bareMass(b.bareNode(node), n)
	total := last.Sub(start)
	return benchRow{
		name: fmt.Sprintf("%d VMs created at once → all Running (%s)", n, driverName(node.DomainType)),
		ours: total, baseline: bare,
		note: fmt.Sprintf("per VM p50 %s p95 %s; %.1f VM/s; %sbaseline: the same %d domains created at once on bare libvirt",
			percentile(lat, 0.5).Round(time.Millisecond), percentile(lat, 0.95).Round(time.Millisecond),
			float64(n)/total.Seconds(), overhead, n),
	}
}

func driverName(t domain.Type) string {
	if t == domain.Simulated {
		return "libvirt test driver"
	}
	return "real qemu " + string(t)
}

// bareMass starts n domains at once: on the test driver in this process,
// or on one warm session libvirtd for qemu.
func (b *bencher) bareMass(node handler.Config, n int) time.Duration {
	ctx := context.Background()
	cfgs := make([]launcher.Config, n)
	xmls := make([]string, n)
	for i := range n {
		cfgs[i] = b.bareConfig(node, fmt.Sprintf("mass-%s-%03d", node.NodeName, i))
		xml, err := launcher.DomainXML(ctx, cfgs[i])
		require.NoError(b.t, err)
		xmls[i] = xml
	}
	uri := "test:///default"
	if node.DomainType != domain.Simulated {
		daemon, err := launcher.StartDaemon(ctx, cfgs[0])
		require.NoError(b.t, err)
		defer daemon.Stop()
		uri = daemon.URI()
	}
	hv, err := libvirt.Connect(uri)
	require.NoError(b.t, err)
	defer hv.Close()
	start := time.Now()
	concurrently(n, n, func(i int) {
		_, err := hv.Create(ctx, xmls[i], false)
		require.NoError(b.t, err)
	})
	total := time.Since(start)
	for i := range n {
		_ = hv.Destroy(ctx, domain.Name(&cfgs[i].VMI))
	}
	return total
}

// nodeOverheadMiB is the mean resident memory of each launcher of ns and
// its children other than qemu (its libvirtd), per VM.
func nodeOverheadMiB(nodeDir, ns string) float64 {
	pidFiles, _ := filepath.Glob(filepath.Join(nodeDir, ns+"_*", "launcher.pid"))
	all := procs.List()
	children, comm := procs.Children(all), map[int]string{}
	for _, p := range all {
		comm[p.PID] = p.Comm
	}
	var total int64
	for _, f := range pidFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		total += procs.RSSKiB(pid)
		for _, c := range children[pid] {
			if !strings.HasPrefix(comm[c], "qemu") {
				total += procs.RSSKiB(c)
			}
		}
	}
	if len(pidFiles) == 0 {
		return 0
	}
	return float64(total) / 1024 / float64(len(pidFiles))
}
