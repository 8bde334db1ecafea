//go:build integration && bench

package node

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/virtflow/virtflow/integration/procs"
)

// memory boots n guests at once and reports the node stack's resident
// memory (kubelet, containerd and kube-proxy once, and per pod its shim and
// pause process) beside each QEMU's.
func memory(t *testing.T, base, disk string, n int) {
	var wg sync.WaitGroup
	for i := range n {
		name := fmt.Sprintf("bench-mem-%d", i)
		t.Cleanup(func() { deletePod(name) })
		wg.Add(1)
		go func() { defer wg.Done(); podBoot(t, name, base, disk) }()
	}
	wg.Wait()
	var fixed float64
	for _, name := range []string{"kubelet", "containerd", "kube-proxy"} {
		fixed += mib(env.node.PID(name))
	}
	all := procs.List()
	children, comm := procs.Children(all), map[int]string{}
	for _, p := range all {
		comm[p.PID] = p.Comm
	}
	var qemu, perPod float64
	var guests int
	for _, p := range all {
		// The node's guests: QEMU run by a pod's shim.
		if p.Comm != "qemu-system-x86" || !strings.HasPrefix(comm[p.Parent], "containerd-shim") {
			continue
		}
		guests++
		qemu += mib(p.PID)
		perPod += mib(p.Parent)
		for _, sibling := range children[p.Parent] {
			if sibling != p.PID {
				perPod += mib(sibling)
			}
		}
	}
	require.Equal(t, n, guests)
	qemu, perPod = qemu/float64(n), perPod/float64(n)
	beside := fixed/float64(n) + perPod
	fmt.Printf("%-48s %9.1fM %9.1fM %6.2fx  (kubelet+containerd+kube-proxy %.0f MiB shared by %d VMs; shim+pause %.1f MiB per pod)\n",
		fmt.Sprintf("node stack per VM beside qemu, %d VMs", n), beside, qemu, beside/qemu, fixed, n, perPod)
}

func mib(pid int) float64 { return float64(procs.RSSKiB(pid)) / 1024 }
