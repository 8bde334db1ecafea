// Package clidownload is hco's cli-download command: a plain HTTP server of
// the virtctl builds its image carries, behind the
// hyperconverged-cluster-cli-download Service, as upstream's.
package clidownload

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/virtflow/virtflow/operators/hco/clidownload"
)

// BuildsDir is where the image holds the builds, laid out
// <arch>/<goos>/virtctl[.exe] as hack/virtctl-builds.sh writes them.
const BuildsDir = "/usr/share/virtflow/virtctl"

// Port is the server's port in the pod and on its Service.
const Port = 8080

// Main serves the builds until ctx ends.
func Main(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cli-download", flag.ContinueOnError)
	dir := fs.String("dir", BuildsDir, "directory of the virtctl builds")
	archives := fs.String("archive-dir", os.TempDir(), "directory to pack the archives into")
	listen := fs.String("listen", fmt.Sprintf(":%d", Port), "address to serve on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(*dir); err != nil {
		return fmt.Errorf("the virtctl builds: %w", err)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *listen, err)
	}
	hs := &http.Server{Handler: (&clidownload.Server{Dir: *dir, ArchiveDir: *archives}).Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	fmt.Fprintf(os.Stderr, "cli-download: serving the virtctl builds in %s on %s\n", *dir, l.Addr())
	if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving the virtctl builds: %w", err)
	}
	return nil
}
