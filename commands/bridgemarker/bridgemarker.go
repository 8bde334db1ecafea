// Package bridgemarker is bridge-marker's command, the container of the
// bridge-marker DaemonSet: on the node's own network it publishes the
// node's Linux bridges as bridge.network.kubevirt.io/<bridge> resources of
// its Node every few seconds, and serves /healthz and /readyz.
package bridgemarker

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/virtflow/virtflow/commands/manager"
	"github.com/virtflow/virtflow/kube/workloads"
	"github.com/virtflow/virtflow/operators/networkaddons/bridgemarker"
)

type settings struct {
	node, kubeconfig string
	interval, port   int
}

func (s *settings) parse(args []string) error {
	fs := flag.NewFlagSet("bridge-marker", flag.ContinueOnError)
	fs.StringVar(&s.node, "node-name", os.Getenv(workloads.NodeNameEnv), "the Node whose bridges are published; $"+workloads.NodeNameEnv+" by default")
	fs.IntVar(&s.interval, "update-interval", 5, "seconds between two looks at the node's bridges")
	fs.IntVar(&s.port, "health-probe-port", bridgemarker.HealthPort, "port of /healthz and /readyz on the pod's address")
	fs.StringVar(&s.kubeconfig, "kubeconfig", "", "kubeconfig; in-cluster credentials when empty")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("reading bridge-marker's flags: %w", err)
	}
	if s.node == "" {
		return errors.New("bridge-marker needs its node's name (--node-name or $" + workloads.NodeNameEnv + ")")
	}
	if s.interval < 1 || s.port < 1 || s.port > 65535 {
		return fmt.Errorf("bridge-marker: --update-interval must be positive and --health-probe-port a port, got %d and %d", s.interval, s.port)
	}
	return nil
}

// Main runs bridge-marker until ctx ends.
func Main(ctx context.Context, args []string) error {
	var s settings
	if err := s.parse(args); err != nil {
		return err
	}
	cfg, err := manager.RESTConfig(s.kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("connecting to the API server: %w", err)
	}
	m := &bridgemarker.Marker{Nodes: cs.CoreV1().Nodes(), Node: s.node}
	srv := &http.Server{Addr: net.JoinHostPort(manager.PodIP(), strconv.Itoa(s.port)), Handler: health(m), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close() // nothing is left to serve; its error says no more.
	}()
	go m.Run(ctx, time.Duration(s.interval)*time.Second, func(err error) { log.Printf("bridge-marker: %v", err) })
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving bridge-marker's health on %s: %w", srv.Addr, err)
	}
	return nil
}

// health answers /healthz while serving, /readyz once the Node showed the
// node's bridges.
func health(m *bridgemarker.Marker) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !m.Ready() {
			http.Error(w, "the node's bridges are not published yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}
