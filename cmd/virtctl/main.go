// Command virtctl controls virtual machines on a virtflow (or KubeVirt)
// cluster.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/virtflow/virtflow/virtctl"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := virtctl.Main(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
