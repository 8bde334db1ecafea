package launcher

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// cpusetFiles are where the launcher's cgroup lists the CPUs it may run
// on: cgroup v1's cpuset controller, then v2's effective set.
var cpusetFiles = []string{"/sys/fs/cgroup/cpuset/cpuset.cpus", "/sys/fs/cgroup/cpuset.cpus.effective"}

// podCPUSet reads the CPUs the kubelet's CPU manager gave the pod, which
// a VMI with dedicated CPUs pins its vCPUs to.
func podCPUSet() ([]int, error) {
	for _, f := range cpusetFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		return parseCPUList(strings.TrimSpace(string(b)))
	}
	return nil, fmt.Errorf("reading the pod's CPU set: none of %v is readable", cpusetFiles)
}

// parseCPUList reads the kernel's list format, "0-3,8,10-11".
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("CPU list %q: %w", s, err)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}
