// Package virtapiserver is the virt-api command: the aggregated API
// subresources.kubevirt.io (start, stop, console, vnc, ...) and the
// VirtualMachine and VirtualMachineInstance webhooks, on one TLS port
// behind the virt-api Service.
package virtapiserver

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/virtflow/virtflow/components/manager"
	"github.com/virtflow/virtflow/node/handler"
	"github.com/virtflow/virtflow/operands"
	"github.com/virtflow/virtflow/operators/kubevirt"
	"github.com/virtflow/virtflow/operators/virtapi"
	"github.com/virtflow/virtflow/operators/webhookcert"
)

// Main runs virt-api until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("virt-api", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig; the pod's service account when empty")
	certDir := fs.String("cert-dir", kubevirt.VirtAPICertDir, "directory of the serving tls.crt and tls.key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mgr, err := manager.New(manager.Options{Kubeconfig: *kubeconfig})
	if err != nil {
		return err
	}
	watcher, err := certwatcher.New(filepath.Join(*certDir, webhookcert.CertFile), filepath.Join(*certDir, webhookcert.KeyFile))
	if err != nil {
		return fmt.Errorf("loading virt-api's certificate: %w", err)
	}
	if err := mgr.Add(watcher); err != nil {
		return fmt.Errorf("watching virt-api's certificate: %w", err)
	}
	srv := &server{mgr: mgr, watcher: watcher}
	if err := mgr.Add(srv); err != nil {
		return fmt.Errorf("adding virt-api's server: %w", err)
	}
	if err := mgr.AddReadyzCheck("serving", srv.ready); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running virt-api: %w", err)
	}
	return nil
}

type server struct {
	mgr     ctrl.Manager
	watcher *certwatcher.CertWatcher
	serving atomic.Bool
}

func (s *server) ready(*http.Request) error {
	if !s.serving.Load() {
		return errors.New("virt-api is not serving yet")
	}
	return nil
}

// Start serves until ctx ends; the aggregator's client CA is read first,
// since aggregated requests are authenticated by it.
func (s *server) Start(ctx context.Context) error {
	clientCAs, allowed, err := virtapi.FrontProxyTrust(ctx, s.mgr.GetAPIReader())
	if err != nil {
		return err
	}
	c := s.mgr.GetClient()
	api := &virtapi.Server{
		Actions: &virtapi.Actions{Client: c}, Version: operands.Version,
		Nodes:        &virtapi.NodeAgents{Client: c, Namespace: manager.Namespace(), TokenSecret: handler.TokenSecret},
		Authenticate: virtapi.ProxyAuthenticator(allowed),
	}
	mux := http.NewServeMux()
	for path, h := range virtapi.Webhooks(admission.NewDecoder(s.mgr.GetScheme())) {
		mux.Handle(path, h)
	}
	mux.Handle("/", api.Handler())
	addr := net.JoinHostPort(manager.PodIP(), strconv.Itoa(kubevirt.VirtAPIPort))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	tlsCfg := &tls.Config{GetCertificate: s.watcher.GetCertificate, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: clientCAs, MinVersion: tls.VersionTLS12}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = hs.Close() }()
	s.serving.Store(true)
	if err := hs.Serve(tls.NewListener(l, tlsCfg)); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving virt-api: %w", err)
	}
	return nil
}
