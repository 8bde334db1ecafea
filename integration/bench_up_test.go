//go:build integration && bench

package integration

import (
	"context"
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
	t.Cleanup(func() { require.NoError(t, u.purge()) })
	baseline := controlPlaneStart(t)
	start := time.Now()
	require.NoError(t, u.start())
	defer func() { require.NoError(t, u.stop()) }()
	rows := []benchRow{{
		name: "virtflow up (fresh data dir, warm cache) → HyperConverged Available", ours: time.Since(start), baseline: baseline,
		note: "baseline: etcd, kube-apiserver, kube-controller-manager and kube-scheduler alone started to ready",
	}}
	bare := nodeConfig(t)
	b := &bencher{t: t, client: u.c, bare: &bare, serialLog: podSerialLog(t, u.c, u.kubeletRoot())}
	node := handler.Config{NodeName: platform.NodeName, DomainType: handler.DetectDomainType()}
	rows = append(rows, b.singleVM(node, envInt("BENCH_RUNS", 3))...)
	rows = append(rows, b.massCreate(node, envInt("BENCH_QEMU_VMS", 10)))
	for i := range rows[1:] {
		rows[i+1].name += " [launcher pods on the real node]"
	}
	printTable(rows)
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
