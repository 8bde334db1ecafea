package platform

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/virtflow/virtflow/operators/clidownload"
)

// startCLIDownloads serves the virtctl builds in dir on addr (127.0.0.1:0
// when empty) and returns the base URL.
func startCLIDownloads(ctx context.Context, dir, addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listening for cli-download on %s: %w", addr, err)
	}
	hs := &http.Server{Handler: (&clidownload.Server{Dir: dir}).Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = hs.Close() }()
	go func() { _ = hs.Serve(l) }()
	return "http://" + l.Addr().String(), nil
}
