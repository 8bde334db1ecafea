//go:build integration && bench

package node

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
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
		fixed += rssMiB(env.node.PID(name))
	}
	qemus := pidsNamed("qemu-system-x86")
	require.Len(t, qemus, n)
	var qemu, perPod float64
	for _, pid := range qemus {
		qemu += rssMiB(pid)
		shim := parent(pid)
		perPod += rssMiB(shim)
		for _, child := range childrenOf(shim) {
			if child != pid {
				perPod += rssMiB(child)
			}
		}
	}
	qemu, perPod = qemu/float64(n), perPod/float64(n)
	beside := fixed/float64(n) + perPod
	fmt.Printf("%-48s %9.1fM %9.1fM %6.2fx  (kubelet+containerd+kube-proxy %.0f MiB shared by %d VMs; shim+pause %.1f MiB per pod)\n",
		fmt.Sprintf("node stack per VM beside qemu, %d VMs", n), beside, qemu, beside/qemu, fixed, n, perPod)
}

func pidsNamed(comm string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if c, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(c)) == comm {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parent is a process's parent ID; the command name in stat may hold
// spaces, so fields are read after its closing parenthesis.
func parent(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

func childrenOf(ppid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && parent(pid) == ppid {
			out = append(out, pid)
		}
	}
	return out
}

// rssMiB is a process's resident memory.
func rssMiB(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
