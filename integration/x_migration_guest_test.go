//go:build integration

package integration

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/virtctl"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// countLine is what the guest's counter prints on its serial console.
var countLine = regexp.MustCompile(`VIRTFLOW-COUNT-(\d+)`)

// startCounter has the guest print VIRTFLOW-COUNT-<i> on its serial
// console every second from a shell loop: i lives in the guest's memory,
// so a guest that moved keeps counting where it was, and one that booted
// again would start over (or not count at all).
func startCounter(t *testing.T, n *upRun, key crclient.ObjectKey) {
	t.Helper()
	console, err := virtctl.OpenStream(context.Background(), n.cfg, key.Namespace, key.Name, "console")
	require.NoError(t, err)
	defer console.Close()
	loop := "[ -e /tmp/counting ] || { touch /tmp/counting; (i=0; while :; do i=$((i+1)); echo VIRTFLOW-COUNT-$i; sleep 1; done) & }"
	require.True(t, guestSays(console, loop, "VIRTFLOW-COUNT-2", time.Minute), "the guest never counted")
}

// counts are the counter's values in serial output, in order.
func counts(serial string) []int {
	var out []int
	for _, m := range countLine.FindAllStringSubmatch(serial, -1) {
		if i, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, i)
		}
	}
	return out
}

// lastCount is the last value the counter printed, 0 before any.
func lastCount(serial string) int {
	c := counts(serial)
	if len(c) == 0 {
		return 0
	}
	return c[len(c)-1]
}

// requireCountsOn checks that the guest, counting when its migration
// began at after, counts on node from beyond after, upward.
func requireCountsOn(t *testing.T, n *upRun, key crclient.ObjectKey, node string, after int) {
	t.Helper()
	var seen []int
	require.Eventually(t, func() bool {
		seen = counts(serialLogOn(t, n, key, node))
		return len(seen) >= 3
	}, time.Minute, time.Second, "the guest does not count on %s", node)
	require.Greater(t, seen[0], after, "the counter goes on from where it was on the source: %v", seen)
	for i := 1; i < len(seen); i++ {
		require.Greater(t, seen[i], seen[i-1], "the counter only goes up: %v", seen)
	}
}

// launcherOn is the VMI's running launcher pod on node.
func launcherOn(t *testing.T, n *upRun, key crclient.ObjectKey, node string) *corev1.Pod {
	t.Helper()
	pods := &corev1.PodList{}
	require.NoError(t, n.c.List(context.Background(), pods, crclient.InNamespace(key.Namespace), crclient.MatchingLabels{"vm.kubevirt.io/name": key.Name}))
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Spec.NodeName == node && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			return p
		}
	}
	t.Fatalf("no launcher of %s runs on %s", key, node)
	return nil
}

// serialLogOn is the guest's serial output as its launcher on node saw it.
func serialLogOn(t *testing.T, n *upRun, key crclient.ObjectKey, node string) string {
	t.Helper()
	p := launcherOn(t, n, key, node)
	root := filepath.Join(n.dataDir, "node", "kubelet")
	if node != "virtflow-node-1" {
		root = filepath.Join(n.dataDir, strings.TrimPrefix(node, "virtflow-"), "kubelet")
	}
	serial, err := os.ReadFile(filepath.Join(launcherpod.HostEmptyDir(root, string(p.UID), launcherpod.PrivateVolume), "serial.log"))
	require.NoError(t, err)
	return string(serial)
}

// vmiAddress is the VMI's address on the pod network.
func vmiAddress(t *testing.T, n *upRun, key crclient.ObjectKey) string {
	t.Helper()
	var ip string
	require.Eventually(t, func() bool {
		got := &kubevirtv1.VirtualMachineInstance{}
		if n.c.Get(context.Background(), key, got) != nil || len(got.Status.Interfaces) == 0 {
			return false
		}
		ip = got.Status.Interfaces[0].IP
		return ip != ""
	}, time.Minute, 200*time.Millisecond)
	return ip
}
