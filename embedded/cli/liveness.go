package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/virtflow/virtflow/node/csi/liveness"
)

// runLiveness is the CSI driver's liveness sidecar, with livenessprobe's
// flag names. It listens on all of its pod's addresses, as upstream's does,
// for the kubelet to probe.
func runLiveness(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("csi-livenessprobe", flag.ContinueOnError)
	var c liveness.Checker
	fs.StringVar(&c.Address, "csi-address", "/csi/csi.sock", "the CSI driver's socket")
	fs.DurationVar(&c.Timeout, "probe-timeout", time.Second, "how long one probe of the driver may take")
	port := fs.Int("health-port", 9808, "serve /healthz on this port")
	if err := fs.Parse(args); err != nil {
		return err
	}
	stop, err := serveHealth(fmt.Sprintf(":%d", *port), c.Handler())
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(out, "probing the CSI driver at %s on /healthz, port %d\n", c.Address, *port)
	<-ctx.Done()
	return nil
}
