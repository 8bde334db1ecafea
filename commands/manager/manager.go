// Package manager builds the controller manager every component pod runs:
// in-cluster credentials (or a kubeconfig), health and readiness on the pod's
// address for the kubelet's probes, and Prometheus metrics beside them.
package manager

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/workloads"
)

// Options select what the manager adds to the defaults.
type Options struct {
	// Kubeconfig is used when set; in-cluster credentials otherwise.
	Kubeconfig string
	// LeaderElectionID, when set, makes replicas elect one active leader
	// through a Lease in the pod's namespace.
	LeaderElectionID string
}

// PodIP is the pod's address from the downward API, or 127.0.0.1 when the
// component runs outside a pod.
func PodIP() string {
	if ip := os.Getenv(workloads.PodIPEnv); ip != "" {
		return ip
	}
	return "127.0.0.1"
}

// Namespace is the pod's namespace, or the install namespace outside one.
func Namespace() string {
	if ns := os.Getenv(workloads.NamespaceEnv); ns != "" {
		return ns
	}
	return "kubevirt-hyperconverged"
}

// RESTConfig loads the kubeconfig or the pod's service account, with room
// for the bursts of small requests reconcilers make.
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("loading Kubernetes credentials: %w", err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	return cfg, nil
}

// New returns a manager whose readiness check passes once its caches
// are synced.
func New(o Options) (ctrl.Manager, error) {
	ctrl.SetLogger(zap.New())
	cfg, err := RESTConfig(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	ip := PodIP()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: net.JoinHostPort(ip, strconv.Itoa(workloads.MetricsPort))},
		HealthProbeBindAddress: net.JoinHostPort(ip, strconv.Itoa(workloads.HealthPort)),
		LeaderElection:         o.LeaderElectionID != "", LeaderElectionID: o.LeaderElectionID,
		LeaderElectionNamespace: Namespace(),
		// Secrets are read one by one, by name: a cached read would watch
		// every Secret of the cluster, which no component's role allows.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
	if err != nil {
		return nil, fmt.Errorf("creating controller manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding health check: %w", err)
	}
	ready := func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("caches are not synced")
		}
		return nil
	}
	if err := mgr.AddReadyzCheck("caches", ready); err != nil {
		return nil, fmt.Errorf("adding readiness check: %w", err)
	}
	return mgr, nil
}

// Direct is a client without the manager's cache, for Temporal activities,
// which read what they just wrote.
func Direct(mgr ctrl.Manager) (client.Client, error) {
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return nil, fmt.Errorf("creating kubernetes client: %w", err)
	}
	return c, nil
}
