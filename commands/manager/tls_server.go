package manager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"

	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/kube/workloads"
)

// Build makes a TLS server's handler once the manager runs; clientCAs,
// when not nil, verify client certificates that are presented (the
// aggregator's).
type Build func(ctx context.Context) (h http.Handler, clientCAs *x509.CertPool, err error)

// ServeTLS adds to mgr a server on the pod IP's workloads.ServingPort,
// with the certificate in certDir reloaded when it changes, and a
// readiness check that passes once it listens.
func ServeTLS(mgr ctrl.Manager, name, certDir string, build Build) error {
	watcher, err := certwatcher.New(filepath.Join(certDir, webhookcert.CertFile), filepath.Join(certDir, webhookcert.KeyFile))
	if err != nil {
		return fmt.Errorf("loading %s's certificate: %w", name, err)
	}
	if err := mgr.Add(watcher); err != nil {
		return fmt.Errorf("watching %s's certificate: %w", name, err)
	}
	srv := &tlsServer{name: name, watcher: watcher, build: build}
	if err := mgr.Add(srv); err != nil {
		return fmt.Errorf("adding %s's server: %w", name, err)
	}
	if err := mgr.AddReadyzCheck("serving", srv.ready); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}
	return nil
}

type tlsServer struct {
	name    string
	watcher *certwatcher.CertWatcher
	build   Build
	serving atomic.Bool
}

func (s *tlsServer) ready(*http.Request) error {
	if !s.serving.Load() {
		return fmt.Errorf("%s is not serving yet", s.name)
	}
	return nil
}

// Start serves until ctx ends.
func (s *tlsServer) Start(ctx context.Context) error {
	h, clientCAs, err := s.build(ctx)
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(PodIP(), strconv.Itoa(workloads.ServingPort))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	tlsCfg := &tls.Config{GetCertificate: s.watcher.GetCertificate, MinVersion: tls.VersionTLS12}
	if clientCAs != nil {
		tlsCfg.ClientAuth, tlsCfg.ClientCAs = tls.VerifyClientCertIfGiven, clientCAs
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(tls.NewListener(l, tlsCfg)) }()
	s.serving.Store(true)
	select {
	case err := <-served:
		return fmt.Errorf("serving %s: %w", s.name, err)
	case <-ctx.Done():
	}
	return s.shutdown(hs, served)
}

// shutdownDelay is how long a stopping server still answers: the Service
// routes to a deleted pod for a moment, and a webhook call refused then
// fails closed (a launcher's eviction refused that way ends `kubectl
// drain` with an error instead of a retry).
const shutdownDelay = 5 * time.Second

// shutdown stops hs after shutdownDelay, letting requests in flight end.
func (s *tlsServer) shutdown(hs *http.Server, served <-chan error) error {
	s.serving.Store(false)
	time.Sleep(shutdownDelay)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutting %s down: %w", s.name, err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving %s: %w", s.name, err)
	}
	return nil
}
