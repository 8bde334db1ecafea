//go:build integration && bench

package integration

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// TestBenchUp measures the embedded platform as a user runs it: `virtflow
// up` on a fresh data directory with warm build caches until the
// HyperConverged is Available, then VMs on the real node (launcher pods the
// kubelet runs), against baselines measured in the same run.
func TestBenchUp(t *testing.T) {
	dataDir := "/var/tmp/virtflow-up-bench"
	args, _ := freshUp(t, dataDir)
	baseline := controlPlaneStart(t)
	start := time.Now()
	var rows []benchRow
	upAndWait(t, args, dataDir, func(c crclient.Client) {
		rows = append(rows, benchRow{
			name: "virtflow up (fresh data dir, warm cache) → HyperConverged Available", ours: time.Since(start), baseline: baseline,
			note: "baseline: etcd, kube-apiserver, kube-controller-manager and kube-scheduler alone started to ready",
		})
		kubeletRoot := filepath.Join(dataDir, "node", "kubelet")
		bare := nodeConfig(t)
		b := &bencher{t: t, client: c, bare: &bare, serialLog: podSerialLog(t, c, kubeletRoot)}
		node := handler.Config{NodeName: platform.NodeName, DomainType: handler.DetectDomainType()}
		rows = append(rows, b.singleVM(node, envInt("BENCH_RUNS", 3))...)
		rows = append(rows, b.massCreate(node, envInt("BENCH_QEMU_VMS", 10)))
	})
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

// podSerialLog finds a VM's serial log in its launcher pod's private
// volume on the node.
func podSerialLog(t *testing.T, c crclient.Client, kubeletRoot string) func(ns, vm string) string {
	return func(ns, vm string) string {
		pods := &corev1.PodList{}
		require.NoError(t, c.List(context.Background(), pods, crclient.InNamespace(ns), crclient.MatchingLabels{"vm.kubevirt.io/name": vm}))
		require.Len(t, pods.Items, 1, "the launcher pod of %s", vm)
		return filepath.Join(launcherpod.HostEmptyDir(kubeletRoot, string(pods.Items[0].UID), launcherpod.PrivateVolume), "serial.log")
	}
}
