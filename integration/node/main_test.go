//go:build integration

// Package node tests the embedded node on its own: a real kube-apiserver
// reachable on the node bridge, containerd, the kubelet and kube-proxy, and
// pods from images built on this machine.
package node

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/addons"
	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/hostnet"
	"github.com/virtflow/virtflow/embedded/images"
	"github.com/virtflow/virtflow/embedded/kubenode"
)

const nodeName = "virtflow-test-node"

// serviceCIDR is where ClusterIPs come from; DNS takes its tenth address.
const serviceCIDR = "10.0.0.0/24"

// cluster is the control plane and node every test here shares.
type cluster struct {
	cp      *controlplane.ControlPlane
	node    *kubenode.Node
	cs      kubernetes.Interface
	bridge  hostnet.Bridge
	kubectl string
	dir     string
	// registry holds the node registry's push identity.
	registry controlplane.RegistryCredentials
}

var env *cluster

// bridge is a prefix no machine of this kind uses for anything else.
var bridge = hostnet.Bridge{Name: "virtflowtest0", Address: netip.MustParsePrefix("10.247.0.1/24")}

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "node test setup:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (code int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	bins, err := ensureTools(ctx)
	if err != nil {
		return 0, err
	}
	// A fixed directory: what a killed run left is found and purged first,
	// so the host is clean before it is compared with itself.
	dir := "/var/tmp/virtflow-node-test"
	if err := purgeLeftovers(ctx, dir, bins); err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	c := &cluster{dir: dir, bridge: bridge}
	before := snapshotHost(dir)
	err = c.start(ctx, bins)
	if err == nil {
		env = c
		code = m.Run()
	}
	// Purging the node must leave the host as it was before the start.
	return code, errors.Join(err, c.stop(), differences(before, snapshotHost(dir)))
}

// tools are the directories the cached builds are in.
type tools struct{ kube, containerd, dns, registry string }

func ensureTools(ctx context.Context) (tools, error) {
	say := func(s string) { fmt.Println(s) }
	cache := binaries.DefaultCacheRoot()
	var t tools
	var err error
	if t.kube, err = binaries.Ensure(ctx, "../../tools/k8s", cache, say); err != nil {
		return t, err
	}
	if t.containerd, err = binaries.EnsureContainerd(ctx, "../../tools/containerd", cache, say); err != nil {
		return t, err
	}
	if t.dns, err = binaries.EnsureCoreDNS(ctx, "../../tools/coredns", cache, say); err != nil {
		return t, err
	}
	t.registry, err = binaries.EnsureRegistry(ctx, "../../tools/registry", cache, say)
	return t, err
}

// nodeConfig is the node every run starts, or purges when a killed run
// left it.
func nodeConfig(dir string, bins tools) kubenode.Config {
	return kubenode.Config{Name: nodeName, DataDir: filepath.Join(dir, "node"), KubeBinDir: bins.kube, ContainerdBinDir: bins.containerd, Bridge: bridge}
}

// purgeLeftovers purges the node of a run that was killed before its own
// purge, if there was one.
func purgeLeftovers(ctx context.Context, dir string, bins tools) error {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	fmt.Println("purging the node a killed run left in", dir)
	err := kubenode.PurgeStopped(ctx, nodeConfig(dir, bins))
	return errors.Join(err, bridge.Remove(ctx), os.RemoveAll(dir))
}

func (c *cluster) start(ctx context.Context, bins tools) error {
	dnsIP, err := addons.DNSServiceIP(serviceCIDR)
	if err != nil {
		return err
	}
	dns := addons.ClusterDNS(bins.dns, dnsIP, c.bridge.Address.Addr().String())
	c.kubectl = filepath.Join(bins.kube, "kubectl")
	if _, err := c.bridge.Ensure(ctx); err != nil {
		return err
	}
	c.cp, err = controlplane.Start(ctx, controlplane.Config{
		DataDir: filepath.Join(c.dir, "kubernetes"), BinDir: bins.kube, Address: c.bridge.Address.Addr().String(),
		ServiceClusterIPRange: serviceCIDR,
	})
	if err != nil {
		return err
	}
	if c.registry, err = c.cp.RegistryCredentials(c.bridge.Address.Addr().AsSlice()); err != nil {
		return err
	}
	registry, err := addons.Registry(bins.registry, filepath.Join(c.dir, "node", "registry"), nodeName, c.registry)
	if err != nil {
		return err
	}
	cfg := nodeConfig(c.dir, bins)
	if cfg.Credentials, err = c.cp.NodeCredentials(nodeName, c.bridge.Address.Addr().AsSlice()); err != nil {
		return err
	}
	cfg.PauseBinary = filepath.Join(c.dir, "pause")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", cfg.PauseBinary, "../../cmd/pause").CombinedOutput(); err != nil {
		return fmt.Errorf("building pause: %w\n%s", err, out)
	}
	cfg.ClusterDNS, cfg.Images = dnsIP, []images.Image{busybox(), dns.Image, registry.Image}
	if c.node, err = kubenode.Start(ctx, cfg); err != nil {
		return err
	}
	if c.cs, err = kubernetes.NewForConfig(c.cp.RESTConfig()); err != nil {
		return err
	}
	if err := c.node.WaitReady(ctx, c.cs); err != nil {
		return err
	}
	return c.installAddons(ctx, dns, registry)
}

// installAddons applies the add-ons and waits until they are Ready and
// pods can be admitted.
func (c *cluster) installAddons(ctx context.Context, all ...addons.Addon) error {
	admin, err := crclient.New(c.cp.RESTConfig(), crclient.Options{})
	if err != nil {
		return err
	}
	if err := addons.InstallAll(ctx, admin, all...); err != nil {
		return err
	}
	return waitDefaultServiceAccount(ctx, c.cs)
}

// waitDefaultServiceAccount waits for kube-controller-manager to create the
// default namespace's service account, without which no pod is admitted.
func waitDefaultServiceAccount(ctx context.Context, cs kubernetes.Interface) error {
	for {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no default service account: %w", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (c *cluster) stop() error {
	var errs []error
	if c.node != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		errs = append(errs, c.node.Purge(ctx))
	}
	if c.cp != nil {
		errs = append(errs, c.cp.Stop())
	}
	errs = append(errs, c.bridge.Remove(context.Background()))
	return errors.Join(errs...)
}

// busybox is Debian's static busybox with the applets the tests use.
func busybox() images.Image {
	entries := []images.Entry{{Path: "/bin/busybox", Source: "/bin/busybox", Mode: 0o755}}
	for _, applet := range []string{"sh", "echo", "sleep", "cat", "cut", "httpd", "mkdir", "ls", "ps", "id", "hostname", "nslookup", "nc", "printf", "ip"} {
		entries = append(entries, images.Entry{Path: "/bin/" + applet, Link: "busybox"})
	}
	return images.Image{Ref: "virtflow.local/busybox:1", Layers: [][]images.Entry{entries}, Env: []string{"PATH=/bin"}}
}
