package kubenode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/virtflow/virtflow/embedded/process"
)

// Purge removes what the node put on the host, for a node that goes away
// for good: every pod (through the CRI, so that the CNI plugins take back
// addresses, veths and chains), kube-proxy's rules, the kubelet's chains and
// cgroups, the mounts under the node's directories, the container log
// links, the fixed paths that were not there before and the state
// directory. The data directory itself stays, as the caller's to delete.
// It needs containerd running, and stops the node.
func (n *Node) Purge(ctx context.Context) error {
	return errors.Join(n.procs.Stop(stopGrace, "kube-proxy", "kubelet"), n.purge(ctx))
}

// PurgeStopped purges a node that is not running, a killed one say, from
// its configuration: it starts only containerd, which finds the pods the
// node left, and purges.
func PurgeStopped(ctx context.Context, cfg Config) error {
	cfg = withDefaults(cfg)
	n := &Node{cfg: cfg, procs: process.Group{LogDir: filepath.Join(hostDataDir(cfg), "logs")}}
	if err := n.takeLock(); err != nil {
		return err
	}
	if iso := cfg.Isolation; iso != nil {
		if err := iso.ensure(ctx, cfg.Name, cfg.DataDir); err != nil {
			return errors.Join(err, n.Stop())
		}
	} else if err := n.recordHost(ctx); err != nil {
		return errors.Join(err, n.Stop())
	}
	// Other CNI configurations are the add-ons' (Multus): a meta-plugin
	// tearing pods down would ask the API server, which is not running.
	if err := n.keepOwnNetworkOnly(); err != nil {
		return errors.Join(err, n.Stop())
	}
	if err := n.startContainerd(ctx); err != nil {
		return errors.Join(err, n.Stop())
	}
	return n.purge(ctx)
}

// keepOwnNetworkOnly removes the CNI configurations that are not the
// node's own network.
func (n *Node) keepOwnNetworkOnly() error {
	dir := n.hostPath("cni", "net.d")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("listing %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == ownNetworkConf {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("removing %s: %w", e.Name(), err)
		}
	}
	return nil
}

func (n *Node) purge(ctx context.Context) error {
	// Without its pods gone, removing the runtime's state would orphan
	// their shims and processes: stop and leave everything for a retry.
	if err := n.removePods(ctx); err != nil {
		return errors.Join(err, n.Stop())
	}
	if iso := n.cfg.Isolation; iso != nil {
		return n.purgeIsolated(iso)
	}
	errs := []error{n.Stop(), n.restoreSysctls(forwarding, userfaultfd)}
	errs = append(errs, n.cleanupProxy(ctx))
	errs = append(errs, removeKubeletChains(ctx), removeCNIChains(ctx))
	errs = append(errs, n.removeNewEmptyTables(ctx))
	errs = append(errs, removeCgroups("kubepods"))
	errs = append(errs, unmountUnder(n.cfg.DataDir, n.cfg.StateDir))
	errs = append(errs, removeLogLinks(n.hostPath("pod-logs")))
	errs = append(errs, n.removeFixedPaths())
	errs = append(errs, os.RemoveAll(n.cfg.StateDir), os.RemoveAll(n.cfg.StateDir+".lock"))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// Purged: a later start is a first start again.
	return os.Remove(n.hostPath("host-before.json"))
}

// purgeIsolated removes an isolated node once its pods are gone: its
// rules, chains and mounts live in its namespaces, which go with it (the
// caller deletes its network namespace); its cgroups and state remain.
func (n *Node) purgeIsolated(iso *Isolation) error {
	errs := []error{n.Stop(), iso.release(n.cfg.Name), removeCgroups(n.cfg.Name)}
	errs = append(errs, unmountUnder(iso.HostDataDir, n.cfg.StateDir))
	errs = append(errs, os.RemoveAll(n.cfg.StateDir), os.RemoveAll(n.cfg.StateDir+".lock"))
	return errors.Join(errs...)
}

// removePods stops and removes every pod sandbox containerd's CRI knows.
func (n *Node) removePods(ctx context.Context) error {
	conn, err := n.cri()
	if err != nil {
		return err
	}
	defer conn.Close()
	rt := runtimeapi.NewRuntimeServiceClient(conn)
	pods, err := listPods(ctx, rt)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pods.Items {
		if _, err := rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			errs = append(errs, fmt.Errorf("stopping pod %s/%s: %w", p.Metadata.Namespace, p.Metadata.Name, err))
			continue
		}
		if _, err := rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			errs = append(errs, fmt.Errorf("removing pod %s/%s: %w", p.Metadata.Namespace, p.Metadata.Name, err))
		}
	}
	return errors.Join(errs...)
}

// listPods lists the pod sandboxes once the CRI serves: containerd answers
// Unavailable while it still recovers the pods it left, which takes longer
// the more there are.
func listPods(ctx context.Context, rt runtimeapi.RuntimeServiceClient) (*runtimeapi.ListPodSandboxResponse, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		pods, err := rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
		if err == nil {
			return pods, nil
		}
		if status.Code(err) != codes.Unavailable || time.Now().After(deadline) {
			return nil, fmt.Errorf("listing pods: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("listing pods: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// cleanupProxy has kube-proxy remove its own rules, whatever its mode.
func (n *Node) cleanupProxy(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, filepath.Join(n.cfg.KubeBinDir, "kube-proxy"), "--cleanup").CombinedOutput()
	if err != nil {
		return fmt.Errorf("kube-proxy --cleanup: %w: %s", err, out)
	}
	return nil
}

// kubeletChains are the chains the kubelet adds to every table it probes.
var kubeletChains = []string{"KUBE-FIREWALL", "KUBE-KUBELET-CANARY", "KUBE-IPTABLES-HINT"}

func removeKubeletChains(ctx context.Context) error {
	var errs []error
	for _, tool := range []string{"iptables", "ip6tables"} {
		for _, hook := range []string{"INPUT", "OUTPUT"} {
			// Repeated until gone: a kubelet restarted without a purge may
			// have added its jump twice.
			for exec.CommandContext(ctx, tool, "-t", "filter", "-D", hook, "-j", "KUBE-FIREWALL").Run() == nil {
			}
		}
		for _, table := range []string{"filter", "nat", "mangle"} {
			for _, chain := range kubeletChains {
				if exec.CommandContext(ctx, tool, "-t", table, "-L", chain, "-n").Run() != nil {
					continue
				}
				if out, err := exec.CommandContext(ctx, tool, "-t", table, "-F", chain).CombinedOutput(); err != nil {
					errs = append(errs, fmt.Errorf("%s -t %s -F %s: %w: %s", tool, table, chain, err, out))
					continue
				}
				if out, err := exec.CommandContext(ctx, tool, "-t", table, "-X", chain).CombinedOutput(); err != nil {
					errs = append(errs, fmt.Errorf("%s -t %s -X %s: %w: %s", tool, table, chain, err, out))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// removeCgroups removes the kubelet's cgroup tree under every cgroup v1
// controller, deepest first; the cgroups are empty once the pods are gone.
func removeCgroups(name string) error {
	roots, err := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", name))
	if err != nil {
		return err
	}
	var errs []error
	for _, root := range roots {
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := unix.Rmdir(dirs[i]); err != nil && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, fmt.Errorf("removing cgroup %s: %w", dirs[i], err))
			}
		}
	}
	return errors.Join(errs...)
}

// unmountUnder unmounts every mount point below the given directories,
// deepest first.
func unmountUnder(dirs ...string) error {
	points, err := mountPoints()
	if err != nil {
		return err
	}
	var mine []string
	for _, p := range points {
		for _, d := range dirs {
			if p == d || strings.HasPrefix(p, d+"/") {
				mine = append(mine, p)
			}
		}
	}
	slices.SortFunc(mine, func(a, b string) int { return len(b) - len(a) })
	var errs []error
	for _, p := range mine {
		if err := unix.Unmount(p, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading mounts: %w", err)
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 {
			points = append(points, unescapeMount(fields[4]))
		}
	}
	return points, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes of space, tab, newline
// and backslash.
func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// removeLogLinks removes the links the kubelet keeps in /var/log/containers
// (a fixed path) to logs under podLogs.
func removeLogLinks(podLogs string) error {
	entries, err := os.ReadDir("/var/log/containers")
	if err != nil {
		return nil
	}
	var errs []error
	for _, e := range entries {
		link := filepath.Join("/var/log/containers", e.Name())
		target, err := os.Readlink(link)
		if err != nil || !strings.HasPrefix(target, podLogs+"/") {
			continue
		}
		if err := os.Remove(link); err != nil {
			errs = append(errs, fmt.Errorf("removing %s: %w", link, err))
		}
	}
	return errors.Join(errs...)
}
