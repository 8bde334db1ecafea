//go:build integration

package node

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// hostState is what a node may change on the host, as text to compare.
type hostState map[string]string

// chainName matches a chain declaration in iptables-save's output.
var chainName = regexp.MustCompile(`(?m)^:(\S+)`)

func snapshotHost(dir string) hostState {
	s := hostState{}
	for _, key := range []string{"vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops", "net/ipv4/ip_forward", "vm/unprivileged_userfaultfd"} {
		data, _ := os.ReadFile(filepath.Join("/proc/sys", key))
		s["sysctl "+key] = strings.TrimSpace(string(data))
	}
	s["nft tables"] = command("nft", "list", "tables")
	for _, tool := range []string{"iptables-save", "ip6tables-save"} {
		names := chainName.FindAllString(command(tool), -1)
		slices.Sort(names)
		s[tool+" chains"] = strings.Join(names, " ")
	}
	s["links"] = strings.Join(linkNames(), " ")
	cgroups, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods")
	s["kubepods cgroups"] = strings.Join(cgroups, " ")
	s["mounts under "+dir] = strings.Join(mountsUnder(dir), " ")
	s["processes of "+dir] = command("pgrep", "-af", dir)
	for _, p := range []string{"/run/containerd", "/var/lib/kubelet", "/var/lib/cni", "/var/log/pods", "/run/virtflow/" + nodeName, "/run/virtflow/" + nodeName + ".lock"} {
		_, err := os.Lstat(p)
		s["exists "+p] = fmt.Sprint(err == nil)
	}
	return s
}

func command(name string, args ...string) string {
	out, _ := exec.Command(name, args...).Output()
	return strings.TrimSpace(string(out))
}

func linkNames() []string {
	entries, _ := os.ReadDir("/sys/class/net")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func mountsUnder(dir string) []string {
	data, _ := os.ReadFile("/proc/self/mountinfo")
	var points []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], dir) {
			points = append(points, f[4])
		}
	}
	return points
}

// differences lists what after has that before had not.
func differences(before, after hostState) error {
	var diffs []string
	for key, was := range before {
		if now := after[key]; now != was {
			diffs = append(diffs, fmt.Sprintf("%s: was %q, now %q", key, was, now))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	slices.Sort(diffs)
	return fmt.Errorf("the host was not left as found:\n%s", strings.Join(diffs, "\n"))
}
