package platform

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/commands/console"
	"github.com/virtflow/virtflow/embedded/hostnet"
)

// ConsoleService is the web console's Service (deploy/base/console.yaml).
const ConsoleService = "virtflow-console"

// ConsoleAdmin is the embedded node's cluster admin service account whose
// token logs in to the console (deploy/embedded/console-admin.yaml).
const ConsoleAdmin = "console-admin"

// startConsoleRelay relays a loopback port to the console's Service, so
// the host's browser reaches it as https://127.0.0.1:<port>/ (a cluster IP
// is the node's, not something to hand a user), and returns that URL.
func (p *Platform) startConsoleRelay(ctx context.Context) (string, error) {
	c, err := newKubeClient(p.cp.RESTConfig())
	if err != nil {
		return "", err
	}
	svc := &corev1.Service{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: ConsoleService}, svc); err != nil {
		return "", fmt.Errorf("reading Service %s: %w", ConsoleService, err)
	}
	to := net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(console.Port))
	if p.consoleRelay, err = hostnet.Forward(net.JoinHostPort("127.0.0.1", strconv.Itoa(p.opts.ConsolePort)), to); err != nil {
		return "", err
	}
	return "https://" + p.consoleRelay.Addr().String(), nil
}
