//go:build integration && bench

package integration

import (
	"context"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
)

// TestBenchUp measures the embedded platform as a user runs it: `virtflow
// up` on a fresh data directory with warm build caches until the
// HyperConverged is Available, then VMs on the real node (launcher pods the
// kubelet runs), against baselines measured in the same run.
func TestBenchUp(t *testing.T) {
	u, err := newUpRun("/var/tmp/virtflow-up-bench")
	require.NoError(t, err)
	// Stopping twice is nothing; a purge of a purged directory neither.
	t.Cleanup(func() { _ = u.stop(); require.NoError(t, u.purge()) })
	baseline := controlPlaneStart(t)
	start := time.Now()
	require.NoError(t, u.start())
	oneNode := time.Since(start)
	rows := []benchRow{{
		name: "virtflow up (fresh data dir, warm cache) → HyperConverged Available", ours: oneNode, baseline: baseline,
		note: "baseline: etcd, kube-apiserver, kube-controller-manager and kube-scheduler alone started to ready",
	}}
	bare := nodeConfig(t)
	b := &bencher{t: t, client: u.c, bare: &bare, serialLog: podSerialLog(t, u.c, u.kubeletRoot())}
	node := handler.Config{NodeName: platform.NodeName, DomainType: handler.DetectDomainType()}
	vmRows := b.singleVM(node, envInt("BENCH_RUNS", 3))
	vmRows = append(vmRows, b.massCreate(node, envInt("BENCH_QEMU_VMS", 10)))
	for i := range vmRows {
		vmRows[i].name += " [launcher pods on the real node]"
	}
	rows = append(rows, vmRows...)
	rows = append(rows, u.networkRows(t)...)
	firstNode := u.nodeReady(t, platform.NodeName)
	require.NoError(t, u.stop())
	require.NoError(t, u.purge())
	rows = append(rows, twoNodeRows(t, oneNode, firstNode)...)
	printTable(rows)
}

// twoNodeRows times `virtflow up --nodes 2` against `up` with one node,
// and the second node's start against the first's, in the same run.
func twoNodeRows(t *testing.T, oneNode, firstNode time.Duration) []benchRow {
	u, err := newUpRun("/var/tmp/virtflow-up-bench")
	require.NoError(t, err)
	t.Cleanup(func() { _ = u.stop(); require.NoError(t, u.purge()) })
	u.args = append(u.args, "--nodes", "2")
	start := time.Now()
	require.NoError(t, u.start())
	twoNodes := time.Since(start)
	second := u.nodeReady(t, "virtflow-node-2")
	require.NoError(t, u.stop())
	return []benchRow{
		{name: "virtflow up --nodes 2 (fresh data dir) → HyperConverged Available", ours: twoNodes, baseline: oneNode,
			note: "baseline: virtflow up with one node, same run"},
		{name: "second node start (netns, mounts, containerd, kubelet, pod CIDR) → Ready", ours: second, baseline: firstNode,
			note: "baseline: the first node's start to Ready (containerd, kubelet, images imported)"},
	}
}

// nodeReady is how long `up` said the node took from its start to Ready.
func (u *upRun) nodeReady(t *testing.T, node string) time.Duration {
	data, err := os.ReadFile(u.log.Name())
	require.NoError(t, err)
	m := regexp.MustCompile(`node `+regexp.QuoteMeta(node)+` Ready after (\S+)`).FindAllStringSubmatch(string(data), -1)
	require.NotEmpty(t, m, "up never said node %s was Ready", node)
	d, err := time.ParseDuration(m[len(m)-1][1])
	require.NoError(t, err)
	return d
}

// controlPlaneStart times a bare control plane from nothing to ready.
func controlPlaneStart(t *testing.T) time.Duration {
	bins, err := binaries.Ensure(context.Background(), "../tools/k8s", binaries.DefaultCacheRoot(), func(string) {})
	require.NoError(t, err)
	start := time.Now()
	cp, err := controlplane.Start(context.Background(), controlplane.Config{DataDir: t.TempDir(), BinDir: bins})
	require.NoError(t, err)
	took := time.Since(start)
	require.NoError(t, cp.Stop())
	return took
}
