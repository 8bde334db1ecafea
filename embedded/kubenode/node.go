// Package kubenode runs a real Kubernetes node on this machine: containerd (v2,
// with Debian's runc and CNI plugins) and the pinned kubelet and kube-proxy,
// attached to a bridge of the node's own whose address is the node IP and
// the pods' gateway. Its state lives under one data directory, so a second
// start resumes the same node and the pods it left running.
package kubenode

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/hostnet"
	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/process"
)

// Config describes one node.
type Config struct {
	// Name is the Node's name.
	Name string
	// DataDir keeps containerd's images and snapshots, the kubelet's root,
	// the CNI allocations and the logs.
	DataDir string
	// StateDir keeps sockets and runtime state; /run/virtflow/<name> when
	// empty.
	StateDir string
	// KubeBinDir holds kubelet and kube-proxy; ContainerdBinDir holds
	// containerd, containerd-shim-runc-v2 and ctr.
	KubeBinDir, ContainerdBinDir string
	// Runc is the OCI runtime; /usr/sbin/runc when empty.
	Runc string
	// CNIBinDir holds the CNI plugins; /usr/lib/cni when empty.
	CNIBinDir string
	// Bridge is the node's bridge; its address is the node IP and its
	// prefix the pod network. It must exist (hostnet.Bridge.Ensure).
	Bridge hostnet.Bridge
	// Credentials are the kubelet's and kube-proxy's.
	Credentials controlplane.NodeCredentials
	// ClusterDNS is the DNS Service's ClusterIP pods resolve with; empty
	// leaves pods with the host's resolver.
	ClusterDNS string
	// ClusterDomain is cluster.local when empty.
	ClusterDomain string
	// PauseBinary is the sandbox process put in the pause image.
	PauseBinary string
	// Images are imported into containerd at every start (unchanged ones
	// cost nothing).
	Images []images.Image
	// NodeIP is the node's address; the bridge's when unset.
	NodeIP netip.Addr
	// RegistryIP is where the node registry listens; NodeIP when unset.
	RegistryIP netip.Addr
	// ClusterCIDR is every node's pod networks together, which kube-proxy
	// tells in-cluster traffic by; the bridge's prefix when unset.
	ClusterCIDR netip.Prefix
	// Isolation, when set, runs the node in namespaces of its own. Its
	// bridge may then be unset at start: SetPodNetwork adds it once the
	// Node has its pod CIDR.
	Isolation *Isolation
}

// DefaultCNIBinDir holds Debian's CNI plugins (containernetworking-plugins).
const DefaultCNIBinDir = "/usr/lib/cni"

// Node is a running node.
type Node struct {
	cfg   Config
	procs process.Group
	host  hostRecord
	// lock is held while the node runs: a second node of the same name
	// would share its state directory and fixed paths.
	lock *os.File
}

// Start starts containerd, imports the images, then starts the kubelet and
// kube-proxy. The caller waits for the Node to be Ready (WaitReady).
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("a node needs root: containerd and runc create namespaces, cgroups and mounts for pods, and the kubelet and kube-proxy program the host's network")
	}
	cfg = withDefaults(cfg)
	if err := checkSocketRoom(filepath.Join(cfg.DataDir, "kubelet")); err != nil {
		return nil, err
	}
	// Restarted when killed, as a service manager would: pods outlive both.
	n := &Node{cfg: cfg, procs: process.Group{LogDir: filepath.Join(hostDataDir(cfg), "logs"), Restart: true}}
	if err := n.start(ctx); err != nil {
		return nil, errors.Join(err, n.Stop())
	}
	return n, nil
}

func (n *Node) start(ctx context.Context) error {
	if err := n.takeLock(); err != nil {
		return err
	}
	for _, d := range []string{n.hostPath("logs"), n.statePath()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	if iso := n.cfg.Isolation; iso != nil {
		// The first node records and restores the host's settings; an
		// isolated node's network settings go with its namespace.
		if err := iso.ensure(ctx, n.cfg.Name, n.cfg.DataDir); err != nil {
			return err
		}
	} else if err := n.recordHost(ctx); err != nil {
		return err
	}
	if err := n.startContainerd(ctx); err != nil {
		return err
	}
	if err := n.importImages(ctx); err != nil {
		return err
	}
	if err := n.makeCNIPluginDir(); err != nil {
		return err
	}
	if n.cfg.Bridge.Address.IsValid() {
		if err := n.writeNetworkConfig(); err != nil {
			return err
		}
	}
	if err := n.startKubelet(); err != nil {
		return err
	}
	return n.startProxy()
}

// pluginSocketRoom is what the longest socket a node plugin registers
// (".../plugins_registry/<driver>-reg.sock") adds to the kubelet's root.
const pluginSocketRoom = len("/plugins_registry/") + 48

// checkSocketRoom refuses a kubelet root so deep that the sockets plugins
// create under it would not fit a unix socket address (107 bytes): the
// kubelet would never see them register.
func checkSocketRoom(kubeletRoot string) error {
	if limit := 107 - pluginSocketRoom; len(kubeletRoot) > limit {
		return fmt.Errorf("the kubelet's root directory %s is %d characters long, too long for the unix sockets node plugins create in it (at most %d): choose a shorter data directory", kubeletRoot, len(kubeletRoot), limit)
	}
	return nil
}

func withDefaults(cfg Config) Config {
	if cfg.StateDir == "" {
		cfg.StateDir = filepath.Join("/run/virtflow", cfg.Name)
	}
	if cfg.Runc == "" {
		cfg.Runc = "/usr/sbin/runc"
	}
	if cfg.CNIBinDir == "" {
		cfg.CNIBinDir = DefaultCNIBinDir
	}
	if cfg.ClusterDomain == "" {
		cfg.ClusterDomain = "cluster.local"
	}
	return cfg
}

// IP is the node's address.
func (n *Node) IP() netip.Addr {
	if n.cfg.NodeIP.IsValid() {
		return n.cfg.NodeIP
	}
	return n.cfg.Bridge.Address.Addr()
}

// Name is the Node's name.
func (n *Node) Name() string { return n.cfg.Name }

// KubeletRoot is the kubelet's root directory, where pods' volumes are.
func (n *Node) KubeletRoot() string { return n.path("kubelet") }

// CNIConfDir is where containerd reads the node's CNI configuration, and
// the network add-ons write theirs (00-multus.conf sorts first).
func (n *Node) CNIConfDir() string { return n.path("cni", "net.d") }

// CNIPluginDir is the node's writable CNI plugin directory, which
// containerd searches after CNIBinDir: the network add-ons install their
// plugins there.
func (n *Node) CNIPluginDir() string { return n.path("cni", "bin") }

// ContainerdSocket is containerd's gRPC socket.
func (n *Node) ContainerdSocket() string { return n.statePath("containerd.sock") }

// LogDir holds containerd.log, kubelet.log and kube-proxy.log.
func (n *Node) LogDir() string { return n.hostPath("logs") }

// HostDataDir is where the node's data is on the host.
func (n *Node) HostDataDir() string { return hostDataDir(n.cfg) }

// Healthy returns a node process that keeps dying, if any.
func (n *Node) Healthy() error { return n.procs.Healthy() }

// PID is the current process ID of containerd, kubelet or kube-proxy.
func (n *Node) PID(name string) int { return n.procs.PID(name) }

// Stop stops kube-proxy, the kubelet and containerd, in that order, and
// puts back the kernel settings the kubelet changed. Pods keep running:
// their containers belong to containerd's shims, not to containerd, so
// virtual machines survive a stop of the platform.
func (n *Node) Stop() error {
	err := errors.Join(n.procs.Stop(stopGrace), n.restoreSysctls(kubeletSettings...))
	if n.lock != nil {
		n.lock.Close()
		n.lock = nil
	}
	return err
}

// takeLock holds an exclusive lock beside the state directory.
func (n *Node) takeLock() error {
	file := n.cfg.StateDir + ".lock"
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(file), err)
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("opening %s: %w", file, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return fmt.Errorf("node %s is already running on this machine (%s is locked)", n.cfg.Name, file)
	}
	n.lock = f
	return nil
}

// stopGrace is how long a node process has to exit after SIGTERM.
const stopGrace = 30 * time.Second

func (n *Node) run(name, bin string, args []string, env ...string) error {
	if iso := n.cfg.Isolation; iso != nil {
		bin, args = iso.wrap(n.cfg.Name, bin, args)
	}
	return n.procs.Start(name, bin, args, env...)
}

// path is a path of the node's data as the node's processes see it.
func (n *Node) path(elem ...string) string {
	return filepath.Join(append([]string{n.cfg.DataDir}, elem...)...)
}

// hostPath is the same path as this process, on the host, sees it.
func (n *Node) hostPath(elem ...string) string {
	return filepath.Join(append([]string{hostDataDir(n.cfg)}, elem...)...)
}

func hostDataDir(cfg Config) string {
	if cfg.Isolation != nil && cfg.Isolation.HostDataDir != "" {
		return cfg.Isolation.HostDataDir
	}
	return cfg.DataDir
}

func (n *Node) statePath(elem ...string) string {
	return filepath.Join(append([]string{n.cfg.StateDir}, elem...)...)
}
