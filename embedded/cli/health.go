package cli

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// serveHealth serves handler on address for the kubelet's probes; close
// stops it.
func serveHealth(address string, handler http.Handler) (close func(), err error) {
	l, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("listening for health checks on %s: %w", address, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return func() { _ = srv.Close() }, nil
}
