// Package controlplane runs a real Kubernetes control plane (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler) from binaries built
// out of the pinned upstream modules, bound to 127.0.0.1, with RBAC on and all
// state under one data directory so a second start resumes the same cluster.
package controlplane

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/virtflow/virtflow/embedded/process"
)

// Config says where the control plane keeps its state and which ports it uses.
type Config struct {
	// DataDir holds pki/, etcd/, logs/ and the kubeconfig files.
	DataDir string
	// BinDir holds etcd, kube-apiserver, kube-controller-manager, kube-scheduler.
	BinDir string
	// APIServerPort is the secure port; 0 picks a free one.
	APIServerPort int
	// EtcdPort is etcd's client port; 0 picks a free one.
	EtcdPort int
	// ServiceClusterIPRange is the range ClusterIPs are allocated from.
	ServiceClusterIPRange string
	// ClusterCIDR is the pods' network, which kube-controller-manager cuts
	// into one /24 per node.
	ClusterCIDR string
	// Address is where kube-apiserver serves and what it advertises;
	// 127.0.0.1 when empty. A real node needs a non-loopback one that its
	// pods reach (the node bridge's address).
	Address string
}

// ControlPlane is a running set of control-plane processes.
type ControlPlane struct {
	cfg        Config
	procs      process.Group
	kubeconfig string
	restConfig *rest.Config
}

const host = "127.0.0.1"

// Start brings up etcd, then kube-apiserver, waits until the API is ready,
// then starts kube-controller-manager and kube-scheduler.
func Start(ctx context.Context, cfg Config) (*ControlPlane, error) {
	cfg = withDefaults(cfg)
	cp := &ControlPlane{cfg: cfg, procs: process.Group{LogDir: filepath.Join(cfg.DataDir, "logs")}}
	for _, d := range []string{cp.path("logs"), cp.path("etcd")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	if err := ensurePKI(cp.path("pki"), cp.apiserverIPs()); err != nil {
		return nil, err
	}
	if err := cp.writeKubeconfigs(); err != nil {
		return nil, err
	}
	if err := cp.writeAdmissionConfig(); err != nil {
		return nil, err
	}
	if err := cp.startAll(ctx); err != nil {
		_ = cp.Stop()
		return nil, err
	}
	return cp, nil
}

func (cp *ControlPlane) startAll(ctx context.Context) error {
	if err := cp.start("etcd", cp.etcdArgs()); err != nil {
		return err
	}
	if err := cp.start("kube-apiserver", cp.apiserverArgs()); err != nil {
		return err
	}
	if err := cp.waitReady(ctx); err != nil {
		return err
	}
	if err := cp.start("kube-controller-manager", cp.controllerManagerArgs()); err != nil {
		return err
	}
	return cp.start("kube-scheduler", cp.schedulerArgs())
}

// KubeconfigPath is the admin kubeconfig a user exports as KUBECONFIG.
func (cp *ControlPlane) KubeconfigPath() string { return cp.kubeconfig }

// RESTConfig is the admin client configuration.
func (cp *ControlPlane) RESTConfig() *rest.Config { return rest.CopyConfig(cp.restConfig) }

// Server is the kube-apiserver URL.
func (cp *ControlPlane) Server() string {
	return "https://" + net.JoinHostPort(cp.cfg.Address, strconv.Itoa(cp.cfg.APIServerPort))
}

// Healthy returns the first process that has died, if any.
func (cp *ControlPlane) Healthy() error { return cp.procs.Healthy() }

// Stop stops the processes in reverse start order.
func (cp *ControlPlane) Stop() error { return cp.procs.Stop(15 * time.Second) }

func (cp *ControlPlane) start(name string, args []string) error {
	return cp.procs.Start(name, filepath.Join(cp.cfg.BinDir, name), args)
}

func (cp *ControlPlane) waitReady(ctx context.Context) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", cp.kubeconfig, err)
	}
	cp.restConfig = cfg
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var lastErr error
	for {
		if err := cp.Healthy(); err != nil {
			return err
		}
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for kube-apiserver /readyz: %w (last: %v)", ctx.Err(), lastErr)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (cp *ControlPlane) path(elem ...string) string {
	return filepath.Join(append([]string{cp.cfg.DataDir}, elem...)...)
}

func withDefaults(cfg Config) Config {
	if cfg.APIServerPort == 0 {
		cfg.APIServerPort = freePort()
	}
	if cfg.EtcdPort == 0 {
		cfg.EtcdPort = freePortPair()
	}
	if cfg.ClusterCIDR == "" {
		cfg.ClusterCIDR = "10.244.0.0/16"
	}
	if cfg.ServiceClusterIPRange == "" {
		cfg.ServiceClusterIPRange = "10.0.0.0/24"
	}
	if cfg.Address == "" {
		cfg.Address = host
	}
	return cfg
}

// apiserverIPs are the addresses kube-apiserver's certificate must name:
// loopback, the address it serves on, and the kubernetes Service's
// ClusterIP (the first of the range), which pods use.
func (cp *ControlPlane) apiserverIPs() []net.IP {
	ips := []net.IP{net.ParseIP(host)}
	if cp.cfg.Address != host {
		ips = append(ips, net.ParseIP(cp.cfg.Address))
	}
	if prefix, err := netip.ParsePrefix(cp.cfg.ServiceClusterIPRange); err == nil {
		ips = append(ips, net.IP(prefix.Masked().Addr().Next().AsSlice()))
	}
	return ips
}

func freePort() int {
	l, err := net.Listen("tcp", host+":0")
	if err != nil {
		return 0
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// freePortPair finds a free port whose successor (etcd's peer port) is
// free too.
func freePortPair() int {
	for i := 0; i < 100; i++ {
		p := freePort()
		l, err := net.Listen("tcp", hostPort(p+1))
		if err == nil {
			l.Close()
			return p
		}
	}
	return freePort()
}

func hostPort(port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// ComponentKubeconfigPath is the kubeconfig of the in-process benchmark's
// identity, which RBAC rather than system:masters authorizes: only the test
// harness binds it (deploy/embedded/inprocess-identity.yaml); on a node
// `up` runs it is bound to nothing, each component having its own account.
func (cp *ControlPlane) ComponentKubeconfigPath() string { return cp.path("virtflow.kubeconfig") }
