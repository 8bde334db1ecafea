package kubenode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/virtflow/virtflow/embedded/hostnet"
)

// Isolation runs a node as a machine of its own on this host: its
// containerd, kubelet and kube-proxy (and so its pods) live in a network
// namespace of its own and in a mount namespace where its data directory
// appears at the path every node's DataDir names. DaemonSets then find
// each node's kubelet root, CNI and device plugin directories at the same
// paths, as on real machines.
type Isolation struct {
	// Netns is the named network namespace (ip netns) the node runs in;
	// its links, addresses and routes are the caller's to set up.
	Netns string
	// HostDataDir is where the node's data really is on the host.
	HostDataDir string
}

// nsDir keeps the nodes' mount namespaces, on a private mount so that
// binding a namespace there does not propagate.
const nsDir = "/run/virtflow/ns"

// deviceplugins is the kubelet's fixed device plugin directory.
const devicePlugins = "/var/lib/kubelet/device-plugins"

func (i *Isolation) mountNS(node string) string { return filepath.Join(nsDir, node+".mnt") }

// wrap runs bin inside the node's namespaces.
func (i *Isolation) wrap(node, bin string, args []string) (string, []string) {
	full := append([]string{"--mount=" + i.mountNS(node), "--net=/run/netns/" + i.Netns, "--", bin}, args...)
	return "nsenter", full
}

// ensure creates the node's mount namespace, with its data directory bound
// at dataDir and a device plugin directory of its own, and its cgroup root.
func (i *Isolation) ensure(ctx context.Context, node, dataDir string) error {
	if err := privateNSDir(ctx); err != nil {
		return err
	}
	file := i.mountNS(node)
	if _, err := hostnet.Run(ctx, "nsenter", "--mount="+file, "true"); err != nil {
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			return fmt.Errorf("creating %s: %w", file, err)
		}
		// private: no mount crosses between the host (the first node) and
		// this node, whose kubelet makes its own root a shared mount.
		if _, err := hostnet.Run(ctx, "unshare", "--mount="+file, "--propagation", "private", "true"); err != nil {
			return fmt.Errorf("creating the mount namespace of node %s: %w", node, err)
		}
		// The copies of the first node's mounts at the paths this node's
		// data takes would hide under it and mislead containerd.
		if err := unmountCopies(ctx, file, dataDir); err != nil {
			return err
		}
	}
	plugins := filepath.Join(i.HostDataDir, "device-plugins")
	for _, d := range []string{i.HostDataDir, dataDir, plugins, devicePlugins} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	for _, b := range [][2]string{{i.HostDataDir, dataDir}, {plugins, devicePlugins}} {
		if _, err := hostnet.Run(ctx, "nsenter", "--mount="+file, "mountpoint", "-q", b[1]); err == nil {
			continue
		}
		if _, err := hostnet.Run(ctx, "nsenter", "--mount="+file, "mount", "--bind", b[0], b[1]); err != nil {
			return fmt.Errorf("binding %s at %s for node %s: %w", b[0], b[1], node, err)
		}
	}
	return ensureCgroupRoot(node)
}

// unmountCopies lazily unmounts, in the mount namespace file, every mount
// at or under dir, deepest first.
func unmountCopies(ctx context.Context, file, dir string) error {
	out, err := hostnet.Run(ctx, "nsenter", "--mount="+file, "cat", "/proc/self/mountinfo")
	if err != nil {
		return err
	}
	var points []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			points = append(points, f[4])
		}
	}
	for i := len(points) - 1; i >= 0; i-- {
		if _, err := hostnet.Run(ctx, "nsenter", "--mount="+file, "umount", "-l", points[i]); err != nil {
			return fmt.Errorf("unmounting the first node's %s from node's namespace: %w", points[i], err)
		}
	}
	return nil
}

// privateNSDir makes nsDir a private mount of its own.
func privateNSDir(ctx context.Context) error {
	if err := os.MkdirAll(nsDir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", nsDir, err)
	}
	if _, err := hostnet.Run(ctx, "mountpoint", "-q", nsDir); err == nil {
		return nil
	}
	if err := unix.Mount(nsDir, nsDir, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("binding %s: %w", nsDir, err)
	}
	if err := unix.Mount("", nsDir, "", unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making %s private: %w", nsDir, err)
	}
	return nil
}

// ensureCgroupRoot creates the node's cgroup root under every cgroup v1
// controller; cpuset needs its CPUs and memory nodes copied from the root
// before a task may join.
func ensureCgroupRoot(node string) error {
	ctrls, err := filepath.Glob("/sys/fs/cgroup/*")
	if err != nil {
		return err
	}
	for _, c := range ctrls {
		if st, err := os.Lstat(c); err != nil || !st.IsDir() {
			continue
		}
		dir := filepath.Join(c, node)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("creating cgroup %s: %w", dir, err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			if v, err := os.ReadFile(filepath.Join(c, f)); err == nil {
				if err := os.WriteFile(filepath.Join(dir, f), v, 0o644); err != nil {
					return fmt.Errorf("setting %s of %s: %w", f, dir, err)
				}
			}
		}
	}
	return nil
}

// release unmounts the node's mount namespace; it goes once its last
// process does.
func (i *Isolation) release(node string) error {
	file := i.mountNS(node)
	if err := unix.Unmount(file, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("releasing the mount namespace of node %s: %w", node, err)
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", file, err)
	}
	return nil
}
