package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/virtflow/virtflow/embedded/binaries"
	"github.com/virtflow/virtflow/embedded/platform"
)

// down stops the `virtflow up` of a data directory as Ctrl-C would, and
// with --purge then removes what a stop leaves on the host for VMs to
// survive.
func down(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("down", flag.ContinueOnError)
	o := platform.Options{}
	fs.StringVar(&o.DataDir, "data-dir", platform.DefaultDataDir(), "state directory (env VIRTFLOW_DATA_DIR)")
	fs.StringVar(&o.ToolsDir, "tools-dir", "tools/k8s", "the tools/k8s module the Kubernetes binaries are built from")
	fs.StringVar(&o.CacheDir, "cache-dir", binaries.DefaultCacheRoot(), "build cache (env VIRTFLOW_CACHE_DIR)")
	purge := fs.Bool("purge", false, "also remove the node's pods, VMs included, their network and the node bridge")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := stopRunning(ctx, o.DataDir, out); err != nil {
		return err
	}
	if !*purge {
		return nil
	}
	if err := platform.Purge(ctx, o); err != nil {
		return err
	}
	fmt.Fprintln(out, "purged the node: no pod, VM or node network is left on this host")
	return nil
}

// stopRunning interrupts the `virtflow up` recorded in the data directory,
// if it still runs, and waits for it to finish stopping.
func stopRunning(ctx context.Context, dataDir string, out io.Writer) error {
	ep, err := platform.ReadEndpoints(dataDir)
	if err != nil || syscall.Kill(ep.PID, 0) != nil {
		return nil
	}
	fmt.Fprintf(out, "stopping virtflow up (pid %d)\n", ep.PID)
	if err := syscall.Kill(ep.PID, syscall.SIGINT); err != nil {
		return fmt.Errorf("interrupting virtflow up (pid %d): %w", ep.PID, err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for syscall.Kill(ep.PID, 0) == nil {
		if time.Now().After(deadline) {
			return errors.New("virtflow up did not stop within two minutes of an interrupt")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}
