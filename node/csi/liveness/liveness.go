// Package liveness is the CSI driver's liveness check, the job upstream's
// livenessprobe sidecar does (its module cannot be had here): /healthz asks
// the driver's Identity service to Probe over its socket and answers 200
// only when the driver says it is ready.
package liveness

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Checker probes one driver socket.
type Checker struct {
	// Address is the driver's socket, "unix:///path" or a path.
	Address string
	// Timeout bounds one probe; 3 s when zero.
	Timeout time.Duration
}

// Check probes the driver once.
func (c Checker) Check(ctx context.Context) error {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	target := "unix://" + strings.TrimPrefix(c.Address, "unix://")
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("connecting to the CSI driver at %s: %w", c.Address, err)
	}
	defer conn.Close()
	resp, err := csi.NewIdentityClient(conn).Probe(ctx, &csi.ProbeRequest{})
	if err != nil {
		return fmt.Errorf("probing the CSI driver at %s: %w", c.Address, err)
	}
	// An unset Ready means ready, per the CSI spec.
	if r := resp.GetReady(); r != nil && !r.GetValue() {
		return fmt.Errorf("the CSI driver at %s is not ready", c.Address)
	}
	return nil
}

// Handler serves /healthz from Check.
func (c Checker) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := c.Check(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}
