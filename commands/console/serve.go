package console

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/virtflow/virtflow/console/server"
)

// serve runs the console's listener and the metrics one until ctx ends or
// either fails, then shuts both down: the long-lived requests (watches,
// consoles, the operations stream) are ended first, the others get
// shutdownGrace to finish.
func serve(ctx context.Context, o options, s *server.Server, log *slog.Logger) error {
	servers := []*http.Server{{Addr: o.listen, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}}
	if o.metricsListen != "" {
		servers = append(servers, &http.Server{Addr: o.metricsListen, Handler: s.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second})
	}
	listeners, err := listen(servers)
	if err != nil {
		return err
	}
	// Bearer tokens and session cookies cross the console's listener:
	// TLS only. The pair is read again at every handshake, so a renewed
	// Secret is served without a restart.
	listeners[0] = tls.NewListener(listeners[0], &tls.Config{MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			pair, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
			if err != nil {
				return nil, fmt.Errorf("loading the console's certificate: %w", err)
			}
			return &pair, nil
		}})
	failed := make(chan error, len(servers))
	for i, hs := range servers {
		l := listeners[i]
		log.Info("serving", "address", l.Addr().String())
		go func() {
			if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
				failed <- fmt.Errorf("serving on %s: %w", hs.Addr, err)
			}
		}()
	}
	select {
	case <-ctx.Done():
	case err = <-failed:
	}
	s.Stop()
	shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	for _, hs := range servers {
		if serr := hs.Shutdown(shutdown); serr != nil {
			_ = hs.Close()
		}
	}
	return err
}

// listen opens every server's address before any serves, so a taken port
// fails the command without leaving the other listener behind.
func listen(servers []*http.Server) ([]net.Listener, error) {
	var out []net.Listener
	for _, hs := range servers {
		l, err := net.Listen("tcp", hs.Addr)
		if err != nil {
			for _, open := range out {
				open.Close()
			}
			return nil, fmt.Errorf("listening on %s: %w", hs.Addr, err)
		}
		out = append(out, l)
	}
	return out, nil
}
