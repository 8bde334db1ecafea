// Package multus is the command of the multus DaemonSet's container: it
// keeps the node's 00-multus.conf, delegating to the cluster network, and
// the kubeconfig Multus's thin plugin reads NetworkAttachmentDefinitions
// with (this pod's ServiceAccount token, rewritten when the kubelet
// rotates it), and removes the configuration when it stops.
package multus

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"time"

	"github.com/virtflow/virtflow/operators/networkaddons/multus"
)

// Main runs the writer until ctx ends.
func Main(ctx context.Context, args []string) error {
	var p multus.Paths
	var interval time.Duration
	fs := flag.NewFlagSet("multus", flag.ContinueOnError)
	fs.StringVar(&p.ConfDir, "cni-conf-dir", "/etc/cni/net.d", "the node's CNI configuration directory, mounted at its own path")
	fs.StringVar(&p.BinDir, "cni-bin-dir", "/opt/cni/bin", "the node's CNI plugin directory Multus delegates to")
	fs.StringVar(&p.Master, "master-cni-file", "", "the configuration delegated to, in --cni-conf-dir; the first other one when empty")
	fs.DurationVar(&interval, "check-interval", 5*time.Second, "how often the master configuration and the token are checked")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("reading multus's flags: %w", err)
	}
	server, err := apiServer()
	if err != nil {
		return err
	}
	w := multus.Writer{Paths: p, Server: server}
	report := func(wrote bool, err error) {
		if err != nil {
			log.Printf("multus: %v", err)
		} else if wrote {
			log.Printf("multus: wrote %s and %s", p.Conf(), p.Kubeconfig())
		}
	}
	return w.Run(ctx, interval, report)
}

// apiServer is the API server as the pod was told of it, which the host
// reaches too: its Service's ClusterIP.
func apiServer() (string, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return "", errors.New("multus runs in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set")
	}
	return "https://" + net.JoinHostPort(host, port), nil
}
